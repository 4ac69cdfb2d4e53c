"""Where exact mode's time goes: cProfile of one engine run (v2 forward on the H100, batch 4, 16 heads, N=1k,
d=128), the share of SimPy's own functions, and the cost of building ops as schedules do.

`python -m benchmarks.profile_exact [--out DIR]` writes `profile_exact.txt`.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import timeit
from pathlib import Path

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.ops import Load, Mma


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("out/bench"))
    args = parser.parse_args(argv)
    arch = load_arch("h100")
    kernels = schedule(arch, "v2", Problem(4, 16, 1024, 128), {})
    profile = cProfile.Profile()
    profile.enable()
    stats = Engine(arch).run(kernels)
    profile.disable()
    table = pstats.Stats(profile)
    total = table.total_tt  # type: ignore[attr-defined]
    simpy = sum(row[2] for key, row in table.stats.items() if "simpy" in key[0])  # type: ignore[attr-defined]
    load_us = timeit.timeit(lambda: Load("K", (0, 1, 2), 1024, engine="cp_async", arrive=("kv", 1)), number=20000)
    mma_us = timeit.timeit(lambda: Mma(128, 64, 128, "bf16", a="reg", b="reg", instruction="mma_sync"), number=20000)
    text = io.StringIO()
    text.write(f"ops {stats.ops}, profiled seconds {total:.3f}, SimPy's own functions {simpy / total:.1%}\n")
    text.write(f"building one Load {load_us / 20000 * 1e6:.2f} us, one Mma {mma_us / 20000 * 1e6:.2f} us\n\n")
    table.stream = text  # type: ignore[attr-defined]
    table.sort_stats("tottime").print_stats(20)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "profile_exact.txt").write_text(text.getvalue(), encoding="utf-8")
    print(text.getvalue().splitlines()[0])


if __name__ == "__main__":
    main()
