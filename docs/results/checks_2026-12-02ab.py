"""The engine's persistent-queue fix (5a5572a) on v4: exact against fast mode where an item of one Q tile leaves the
second softmax warpgroup idle (odd numbers of Q tiles per sequence), B200.

`python docs/results/checks_2026-12-02ab.py > docs/results/checks_2026-12-02ab.txt` (a minute after the fix; run at
the commit before it, 8f5d332, the first case's exact run takes several minutes).
"""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate

CASES = (
    Problem(16, 16, 384, 128, causal=True),
    Problem(16, 16, 640, 128, causal=True),
    Problem(2, 16, 2048, 128, causal=True),
)


def main() -> None:
    arch = load_arch("b200")
    for problem in CASES:
        exact = simulate(arch, "v4", problem, mode="exact")
        fast = simulate(arch, "v4", problem)
        print(
            f"{problem.batch} x {problem.heads} x {problem.seqlen_q} causal={problem.causal}: exact {exact.cycles:,.0f}"
            f" cycles, fast {fast.cycles:,.0f}, fast / exact {fast.cycles / exact.cycles:.3f}"
        )


if __name__ == "__main__":
    main()
