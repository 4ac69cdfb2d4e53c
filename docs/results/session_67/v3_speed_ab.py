"""Fast mode's wall time per prediction of v3 at the speed benchmark's shapes (16k tokens, 2048 / 128 heads, d = 128),
median of 5 after a warm-up, for the tree on PYTHONPATH (`python docs/results/session_67/v3_speed_ab.py LABEL`)."""

from __future__ import annotations

import statistics
import sys
import time

from benchmarks.simspeed import problem_for
from simgpu import load_arch, simulate

label = sys.argv[1]
for arch_name in ("h100", "h200"):
    arch = load_arch(arch_name)
    for pass_ in ("fwd", "bwd"):
        for n in (1024, 4096, 16384, 65536, 131072):
            problem = problem_for(n, pass_)
            simulate(arch, "v3", problem)
            times = []
            for _ in range(5):
                started = time.perf_counter()
                result = simulate(arch, "v3", problem)
                times.append(time.perf_counter() - started)
            print(
                f"{label} {arch_name} v3 {pass_} {n}: {statistics.median(times) * 1e3:.1f} ms, "
                f"{result.tflops:.0f} TFLOP/s"
            )
