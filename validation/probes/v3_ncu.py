"""Device probe target: our FA3 forward kernel (``cupy_kernels/v3``) at d=64 or d=128 (B=4, H=2048/d, N=4096),
with or without ping-pong, a few launches, for Nsight Compute to profile the last one. Tells which unit the real
kernel is bound by (tensor pipe, issue, MUFU, stall reasons): what the simulator's v3 model must reproduce.

  PYTHONPATH=. ncu --clock-control none --kernel-name regex:fa3 --launch-skip 2 --launch-count 1 ... \\
      python3 validation/probes/v3_ncu.py 128 1      (headdim, pingpong 0/1)
"""

from __future__ import annotations

import sys

import cupy as cp

from cupy_kernels.common import to_bf16_bits
from cupy_kernels.v3 import launch as fa3

headdim, pingpong = int(sys.argv[1]), sys.argv[2] == "1"
shape = (4, 2048 // headdim, 4096, headdim)
rng = cp.random.default_rng(0)
q, k, v = (to_bf16_bits(rng.standard_normal(shape, dtype=cp.float32)) for _ in range(3))
for _ in range(3):
    fa3.forward(q, k, v, pingpong=pingpong)
cp.cuda.runtime.deviceSynchronize()
