"""v1 on FA2's A100 sweep at N = 512 and 1k (d = 64, the release's splits): fast and exact mode's TFLOP/s, exact's
share of the 312 TFLOP/s peak, and fast over exact cycles, for the schedule as checked out (run with and without
`q_commit_before_pv.patch` applied). `python docs/results/fa1_release_not_kept/a100_fast_vs_exact.py`"""

from algorithms.v1.schedule import release_splits
from simgpu import Problem, load_arch, simulate

arch = load_arch("a100")
for seqlen in (512, 1024):
    problem = Problem(16384 // seqlen, 32, seqlen, 64)
    options = {"splits": release_splits(arch, problem)}
    fast = simulate(arch, "v1", problem, options)
    exact = simulate(arch, "v1", problem, options, mode="exact")
    print(
        f"N={seqlen} splits={options['splits']}: fast {fast.tflops:.1f} TFLOP/s, exact {exact.tflops:.1f} "
        f"({100 * exact.tflops / 312:.1f}% of peak), fast over exact cycles {fast.cycles / exact.cycles:.3f}"
    )
