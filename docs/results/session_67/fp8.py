"""v3's FP8 forward over bf16 on the H100 model at d = 128: the test's shape (2 x 8 x 1k, exact mode) and 16k tokens
of one sequence (fast mode). `python docs/results/session_67/fp8.py` (on main: `fp8_main.txt`; with the change:
`fp8_change.txt`)."""

from __future__ import annotations

from simgpu import Problem, simulate

for batch, heads, n, mode in ((2, 8, 1024, "exact"), (1, 16, 16384, "fast")):
    bf16 = simulate("h100", "v3", Problem(batch, heads, n, 128), mode=mode)
    fp8 = simulate("h100", "v3", Problem(batch, heads, n, 128, dtype="fp8"), mode=mode)
    print(
        f"{batch}x{heads}x{n} d=128: bf16 {bf16.tflops:.0f} fp8 {fp8.tflops:.0f} "
        f"ratio {fp8.tflops / bf16.tflops:.3f} ({fp8.bottleneck})"
    )
