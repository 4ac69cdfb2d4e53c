"""Estimated exact-mode ops at issue 4's shape (4 x 16 heads, N = 4096, d = 64; v3 at d = 128 too) and fast-mode
medians of five predictions at the speed benchmark's problem (16k tokens, 16 heads, d = 128), of the checkout on the
path: `python docs/results/session_66/ops_and_times.py` (the base), `PYTHONPATH=CHECKOUT ...` (the candidate). The
times are wall times on a noisy VM."""

from __future__ import annotations

import statistics
import time

from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.engine import estimated_ops

SHAPES = (("h200", "v2", 64), ("a100", "v2", 64), ("h100", "v3", 64), ("h100", "v3", 128))
CASES = ("h100:v3:fwd:1024", "h100:v3:fwd:131072", "h100:v2:fwd:1024", "h100:v2:fwd:131072", "a100:v2:fwd:1024")

for arch_name, algo, d in SHAPES:
    arch = load_arch(arch_name)
    ops = sum(estimated_ops(kernel) for kernel in schedule(arch, algo, Problem(4, 16, 4096, d, pass_="fwd"), {}))
    print(f"{arch_name} {algo} forward, 4 x 16 x 4096, d = {d}: {ops:,.0f} ops estimated")
for case in CASES:
    arch_name, algo, pass_, seqlen = case.split(":")
    n = int(seqlen)
    arch, problem = load_arch(arch_name), Problem(max(1, 16384 // n), 16, n, 128, pass_=pass_)
    simulate(arch, algo, problem)
    times = []
    for _ in range(5):
        started = time.perf_counter()
        simulate(arch, algo, problem)
        times.append(time.perf_counter() - started)
    print(f"{case}: fast mode median {statistics.median(times) * 1e3:.1f} ms")
