"""Fast mode's reported L2 busy fraction and bottleneck against exact mode's on the fast-vs-exact grid of 88 small
problems (`experiments.fast_vs_exact`'s GRID): the L2's busy cycles in each mode (busy fraction times cycles), their
ratio, and whether the two modes name the same bottleneck unit. Run against a checkout by PYTHONPATH.

`PYTHONPATH=. python docs/results/l2_busy_fast_30.py` (`l2_busy_fast_30.txt`: at 34f670c, before fast mode reported
what its representatives' L2 served, and after)
"""

from __future__ import annotations

from experiments.fast_vs_exact import GRID, SHAPES
from simgpu import Problem, load_arch, simulate

ratios = []
same = 0
for arch_name, algo, pass_, causal, shape in GRID:
    overrides, sizes = SHAPES[shape]
    arch = load_arch(arch_name, overrides)
    problem = Problem(**sizes, causal=causal, pass_=pass_)  # type: ignore[arg-type]
    fast = simulate(arch, algo, problem, mode="fast")
    exact = simulate(arch, algo, problem, mode="exact")
    ratios.append(fast.busy["l2"] * fast.cycles / (exact.busy["l2"] * exact.cycles))
    same += fast.bottleneck == exact.bottleneck
ratios.sort()
print(f"{len(ratios)} cases: L2 busy cycles fast / exact from {ratios[0]:.4f} to {ratios[-1]:.4f}, median")
within = sum(abs(ratio - 1) <= 0.01 for ratio in ratios)
print(f"{ratios[len(ratios) // 2]:.4f}, within 1% in {within}; same bottleneck in {same}")
