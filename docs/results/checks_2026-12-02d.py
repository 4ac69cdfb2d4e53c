"""Side check of the seventh session: fast mode against exact mode on the H100's persistent wgmma GEMM, at the
shape of `tests/core/test_fast.py`'s pinned story and at four others (is the miss the waits' or fast mode's own?).
Run from the repository root: `python docs/results/checks_2026-12-02d.py > docs/results/checks_2026-12-02d.txt`."""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate
from simgpu.problem import GemmProblem

for m, n, k in ((4096, 4096, 4096), (4096, 4096, 1024), (4096, 4096, 2048), (2048, 2048, 4096), (1024, 1024, 4096)):
    problem = GemmProblem(m, n, k, "bf16")
    fast = simulate("h100", "gemm", problem)
    exact = simulate("h100", "gemm", problem, mode="exact")
    print(f"{m}x{n}x{k}: fast {fast.cycles:,.0f} exact {exact.cycles:,.0f} cycles, fast/exact - 1 = "
          f"{100 * (fast.cycles / exact.cycles - 1):+.1f}%")  # fmt: skip

# The pinned story's shape with waits free (latency.wait_cycles off): how much of the miss the waits make.
no_wait = load_arch("h100").with_overrides({"latency.wait_cycles": None})
problem = GemmProblem(4096, 4096, 4096, "bf16")
fast, exact = simulate(no_wait, "gemm", problem), simulate(no_wait, "gemm", problem, mode="exact")
print(f"4096x4096x4096, wait_cycles off: fast {fast.cycles:,.0f} exact {exact.cycles:,.0f} cycles, fast/exact - 1 = "
      f"{100 * (fast.cycles / exact.cycles - 1):+.1f}%")  # fmt: skip

# v3's levels on the H100 (issue 6's published figures: FP8 close to 1.2 PFLOP/s, d=256 up to ~740), fast mode.
for label, problem in (
    ("bf16 d=128 4x16x8k", Problem(4, 16, 8192, 128)),
    ("fp8 d=128 4x16x8k", Problem(4, 16, 8192, 128, dtype="fp8")),
    ("bf16 d=256 4x8x8k", Problem(4, 8, 8192, 256)),
):
    result = simulate("h100", "v3", problem)
    print(f"v3 H100 {label}: {result.tflops:.0f} TFLOP/s, bound by {result.bottleneck}")
