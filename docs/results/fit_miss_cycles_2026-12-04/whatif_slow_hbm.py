"""Fast against exact mode on `experiments.fast_vs_exact`'s what-if of an H100 whose HBM is 33x slower (1e11 B/s):
v2's forward, 4 heads of N = 1024, d = 128 (32 tiles, one wave; K and V miss on every 8th access). Prints the checkout
on the path, then fast over exact cycles and both. `whatif_slow_hbm.txt`: at 4fc3c4c (before the twenty-first
session's fit from a single round), at 017e28a (before the fit variants held whole miss cycles) and after.
Run from the repository root: `python docs/results/fit_miss_cycles_2026-12-04/whatif_slow_hbm.py`."""

from __future__ import annotations

import simgpu
from simgpu import Problem, load_arch, simulate

if __name__ == "__main__":
    print("#", simgpu.__file__)
    arch = load_arch("h100", {"hbm.bandwidth_bytes_per_s": 1e11})
    problem = Problem(1, 4, 1024, 128)
    fast = simulate(arch, "v2", problem, mode="fast")
    exact = simulate(arch, "v2", problem, mode="exact")
    print(f"fast / exact {fast.cycles / exact.cycles:.4f}: fast {fast.cycles:.0f}, exact {exact.cycles:.0f} cycles")
