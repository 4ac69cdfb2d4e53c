"""Exact mode's time per prediction over issue 4's matrix: standard attention, v1 and v2 on every arch, forward,
backward and both, at the issue's CLI shape (batch 4, 16 heads, N = 4096, d = 64; `benchmarks.exact_speed`'s one
case is the H200's v2 forward). Each prediction runs once, in this process after one small warm-up, through
`simulate(..., mode="exact")`; the CSV gives its wall and CPU seconds, its cycles and whether the engine ran
compiled (`simgpu.native`). A CLI call adds its start-up (about a second) to each.

`python -m benchmarks.exact_issue4 [--out FILE.csv]` (default `out/bench/exact_issue4.csv`).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from benchmarks.simspeed import write_rows
from simgpu import Problem, SimgpuError, load_arch, native, simulate

ARCHS = ("a100", "h100", "h200", "b200")
ALGOS = ("standard", "v1", "v2")
PASSES = ("fwd", "bwd", "fwd_bwd")
SHAPE = {"batch": 4, "heads": 16, "seqlen_q": 4096, "headdim": 64}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("out/bench/exact_issue4.csv"))
    args = parser.parse_args(argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    simulate("h100", "v2", Problem(1, 1, 256, 64), mode="exact")  # imports and first calls out of the timings
    rows = []
    for arch_name in ARCHS:
        arch = load_arch(arch_name)
        for algo in ALGOS:
            for pass_ in PASSES:
                problem = Problem(**SHAPE, pass_=pass_)
                row: dict[str, object] = {"arch": arch_name, "algo": algo, "pass": pass_}
                started, started_cpu = time.perf_counter(), time.process_time()
                try:
                    cycles: object = simulate(arch, algo, problem, mode="exact").cycles
                except SimgpuError as err:  # the event budget, or a problem the arch cannot hold
                    cycles = f"{type(err).__name__}: {err}"
                row.update(
                    wall_s=time.perf_counter() - started,
                    cpu_s=time.process_time() - started_cpu,
                    cycles=cycles,
                    native=native.compiled(),
                    load1=os.getloadavg()[0],
                )
                rows.append(row)
                print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()))
    write_rows(args.out, rows)


if __name__ == "__main__":
    main()
