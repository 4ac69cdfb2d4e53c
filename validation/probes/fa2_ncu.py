"""Device probe target: our FA2 forward kernel at d=64 and d=128 (B=4, H=16 or 32, N=4096), a few launches each,
for Nsight Compute to profile the last launch of each head dimension. Tells which unit the real kernel is bound
by (tensor pipe, issue, smem wavefronts, stall reasons): what the simulator's v2 model must reproduce.

  PYTHONPATH=. ncu --clock-control none --kernel-name regex:fa2_fwd --launch-skip 2 --launch-count 1 ... \\
      python3 validation/probes/fa2_ncu.py 64      (and 128)
"""

from __future__ import annotations

import sys

import cupy as cp

from cupy_kernels.common import to_bf16_bits
from cupy_kernels.v2 import launch as fa2

headdim = int(sys.argv[1])
shape = (4, 2048 // headdim, 4096, headdim)
rng = cp.random.default_rng(0)
q, k, v = (to_bf16_bits(rng.standard_normal(shape, dtype=cp.float32)) for _ in range(3))
for _ in range(3):
    fa2.forward(q, k, v)
cp.cuda.runtime.deviceSynchronize()
