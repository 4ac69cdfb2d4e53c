"""Fast mode against exact mode at the cases the loaded-alone trial (`../loaded_alone.patch`) was looked at for: v1
as our kernel loops in lockstep on the H100 and H200, FA1's split forward on the A100 and two H100 GEMMs, and the
case this session's kept change is for. Run it with the trial applied and built, or without it.
`python docs/results/slot_misses_54/not_kept/loaded_alone/cases.py`"""

from __future__ import annotations

from typing import Any

from simgpu import GemmProblem, Problem, simulate

ALGORITHM1 = {"block_m": 64, "block_n": 64, "warps": 4, "variant": "algorithm1"}
CASES: tuple[tuple[str, str, Any, dict[str, Any]], ...] = (
    ("h100", "v1", Problem(8, 16, 2048, 128), ALGORITHM1),
    ("h100", "v1", Problem(8, 16, 1024, 128), ALGORITHM1),
    ("h200", "v1", Problem(8, 16, 2048, 128), ALGORITHM1),
    ("a100", "v1", Problem(8, 32, 2048, 64), {"splits": 5}),
    ("h100", "gemm", GemmProblem(4096, 4096, 4096, "bf16"), {}),
    ("h100", "gemm", GemmProblem(8192, 8192, 2048, "bf16"), {}),
    ("h200", "v1", Problem(32, 32, 512, 64), ALGORITHM1),
)


def main() -> None:
    for arch, algo, problem, options in CASES:
        fast = simulate(arch, algo, problem, options)
        exact = simulate(arch, algo, problem, options, mode="exact")
        print(
            f"{arch} {algo} {problem.describe()} {options}: fast {fast.cycles:,.0f}, exact {exact.cycles:,.0f}, "
            f"fast over exact {fast.cycles / exact.cycles:.3f}; exact mode's HBM {exact.busy['hbm']:.3f} busy"
        )


if __name__ == "__main__":
    main()
