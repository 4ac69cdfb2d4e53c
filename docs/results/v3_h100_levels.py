"""v3's forward throughput on the H100 model (fast mode, FA3's default tiles, not causal) against FA3's published
levels: fp16 up to ~740 TFLOP/s at d = 256 and long sequences, FP8 close to 1.2 PFLOP/s (Shah et al. 2024, Fig. 5
and 7). 16k tokens (batch = 16384 / N), hidden 2048 (heads = 2048 / d). Also v3 over v2 on the same shapes (FA3: 1.5-2x
forward). Run from the repository root: `python docs/results/v3_h100_levels.py > docs/results/v3_h100_levels.txt`."""

from __future__ import annotations

from simgpu import Problem, load_arch
from simgpu.api import simulate

ARCH = load_arch("h100")
for d in (64, 128, 256):
    for n in (4096, 16384):
        shape = (16384 // n, 2048 // d, n, d)
        v2 = simulate(ARCH, "v2", Problem(*shape, dtype="fp16", pass_="fwd"))
        v3 = {dtype: simulate(ARCH, "v3", Problem(*shape, dtype=dtype, pass_="fwd")) for dtype in ("fp16", "fp8")}
        print(f"d={d:3} N={n:5}: v3 fp16 {v3['fp16'].tflops:5.0f} TFLOP/s ({v3['fp16'].bottleneck}), "
              f"fp8 {v3['fp8'].tflops:5.0f} ({v3['fp8'].bottleneck}); v2 fp16 {v2.tflops:4.0f} ({v2.bottleneck}), "
              f"v3 / v2 {v3['fp16'].tflops / v2.tflops:.2f}x")  # fmt: skip
