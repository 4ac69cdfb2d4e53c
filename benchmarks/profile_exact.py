"""Where exact mode's time goes: cProfile of one engine run, its own time grouped by where the functions live (SimPy,
the heap, the engine's event loop, the engine's walk of programs, the SM's rules, each unit model, the algorithms'
programs), and the cost of building ops as schedules do.

Cases: v2 forward on the H100 (batch 4, 16 heads, N = 1k, d = 128), and issue 4's v2 forward on the H200 (batch 4,
16 heads, N = 4096, d = 64) with `--issue4`. cProfile charges each Python call a fixed overhead, so call-heavy code
weighs more here than in an unprofiled run: compare shares between versions, not with wall time.

`python -m benchmarks.profile_exact [--issue4] [--out DIR]` writes `profile_exact.txt` (`profile_exact_issue4.txt`).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import timeit
from collections import Counter
from pathlib import Path

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.ops import Load, Mma

GROUPS = (  # (substring of the function's file or name, group): the first that matches
    ("simpy", "SimPy's own functions"),
    ("heappush", "heap (heappush/heappop)"),
    ("heappop", "heap (heappush/heappop)"),
    ("/algorithms/", "algorithms (programs, op building)"),
    ("simgpu/units/", "unit models (simgpu/units)"),
    ("simgpu/sm.py", "SM rules (simgpu/sm.py)"),
)


def group(key: tuple[str, int, str]) -> str:
    filename, _, function = key
    for needle, name in GROUPS:
        if needle in filename or needle in function:
            return name
    if "simgpu/engine.py" in filename:
        return "engine event loop (Engine._loop)" if function == "_loop" else "engine (roles, barriers, rest)"
    return "other (builtins, op constructors)"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--issue4", action="store_true", help="issue 4's v2 forward on the H200 instead")
    parser.add_argument("--out", type=Path, default=Path("out/bench"))
    args = parser.parse_args(argv)
    arch = load_arch("h200" if args.issue4 else "h100")
    problem = Problem(4, 16, 4096, 64) if args.issue4 else Problem(4, 16, 1024, 128)
    kernels = schedule(arch, "v2", problem, {})
    profile = cProfile.Profile()
    profile.enable()
    stats = Engine(arch).run(kernels)
    profile.disable()
    table = pstats.Stats(profile)
    total = table.total_tt  # type: ignore[attr-defined]
    shares: Counter[str] = Counter()
    for key, row in table.stats.items():  # type: ignore[attr-defined]
        shares[group(key)] += row[2]
    load_us = timeit.timeit(lambda: Load("K", (0, 1, 2), 1024, engine="cp_async", arrive=("kv", 1)), number=20000)
    mma_us = timeit.timeit(lambda: Mma(128, 64, 128, "bf16", a="reg", b="reg", instruction="mma_sync"), number=20000)
    text = io.StringIO()
    text.write(f"{arch.name} v2 {problem.describe()}\n")
    text.write(
        f"ops {stats.ops}, profiled seconds {total:.3f}, SimPy's own functions {shares[GROUPS[0][1]] / total:.1%}\n"
    )
    for name, seconds in shares.most_common():
        text.write(f"  {seconds / total:6.1%}  {name}\n")
    text.write(f"building one Load {load_us / 20000 * 1e6:.2f} us, one Mma {mma_us / 20000 * 1e6:.2f} us\n\n")
    table.stream = text  # type: ignore[attr-defined]
    table.sort_stats("tottime").print_stats(25)
    args.out.mkdir(parents=True, exist_ok=True)
    name = "profile_exact_issue4.txt" if args.issue4 else "profile_exact.txt"
    (args.out / name).write_text(text.getvalue(), encoding="utf-8")
    print("".join(text.getvalue().splitlines(keepends=True)[:12]), end="")


if __name__ == "__main__":
    main()
