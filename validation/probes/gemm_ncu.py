"""Device probe target: a few bf16 8192^3 torch matmuls, for Nsight Compute to profile the last one.

Run on the GPU machine:
  ncu --clock-control none --launch-skip 4 --launch-count 1 --csv --metrics <list> python3 validation/probes/gemm_ncu.py
It reports which cuBLAS kernel (tile and cluster shape in its name) ran, its SM cycles, L2 and DRAM bytes and
tensor-pipe activity: what the simulator's GEMM schedule and unit models must reproduce.
"""

from __future__ import annotations

import torch

SIZE = 8192

a = torch.randn(SIZE, SIZE, device="cuda", dtype=torch.bfloat16)
b = torch.randn(SIZE, SIZE, device="cuda", dtype=torch.bfloat16)
for _ in range(5):
    torch.matmul(a, b)
torch.cuda.synchronize()
