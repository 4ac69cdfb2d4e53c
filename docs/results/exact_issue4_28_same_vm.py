"""Exact mode's wall time at issue 4's CLI shape (4 x 16 heads, N = 4096, d = 64) for three cases, with the warm-up
of `benchmarks.exact_issue4`: run once with PYTHONPATH at a worktree of an older commit (its native build made there
with `build_native.py`) and once at this tree, back to back on one machine, it tells the code's speed from the VM's.
Output: `docs/results/exact_issue4_28_same_vm.txt`.
"""

from __future__ import annotations

import time

import simgpu
from simgpu import Problem, load_arch, simulate

CASES = (("a100", "v2", "fwd"), ("a100", "standard", "fwd"), ("b200", "v2", "fwd"))


def main() -> None:
    simulate("h100", "v2", Problem(1, 1, 256, 64), mode="exact")
    print(simgpu.__file__)
    for arch, algo, pass_ in CASES:
        problem = Problem(batch=4, heads=16, seqlen_q=4096, headdim=64, pass_=pass_)
        started = time.perf_counter()
        result = simulate(load_arch(arch), algo, problem, mode="exact")
        print(f"{arch} {algo} {pass_} {time.perf_counter() - started:.2f}s cycles {result.cycles:.4g}")


if __name__ == "__main__":
    main()
