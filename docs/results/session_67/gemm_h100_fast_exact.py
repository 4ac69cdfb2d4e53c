"""The H100's default GEMM at 4096^3, fast mode against exact mode (`tests/core/test_fast.py`).
`python docs/results/session_67/gemm_h100_fast_exact.py` (`gemm_h100_fast_exact.txt`)."""

from __future__ import annotations

from simgpu import simulate
from simgpu.problem import GemmProblem

problem = GemmProblem(4096, 4096, 4096, "bf16")
fast, exact = simulate("h100", "gemm", problem), simulate("h100", "gemm", problem, mode="exact")
print(f"fast {fast.cycles:.0f} exact {exact.cycles:.0f} ratio {fast.cycles / exact.cycles:.4f}")
