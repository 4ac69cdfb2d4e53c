"""Device probe: Nsight Compute's pipe counters on the softmax loops of `v3_softmax_groups.py`.

Launches each kernel once (ITERS iterations, one CTA per SM) and prints its clock64 cycles per iteration, so that
`ncu` can count per kernel the XU (MUFU) pipe's instructions and busy share, the issue slots and the warps' stall
reasons, and its elapsed cycles can be set against the clock64 figures. (It was written when a first `pass_pair` run
read 296 cycles per exp pass, 27.7 ex2 per clock: ncu's elapsed cycles showed that reading wrong, a stride bug in
the script, since fixed.) Run on the GPU machine from the repository root under ncu, e.g.
`ncu --clock-control none --metrics ... python3 validation/probes/v3_softmax_ncu.py` (the metrics the tenth
session asked for are the columns of `validation/h200/v3_softmax_ncu_h200.csv`).
"""

from __future__ import annotations

import cupy as cp
import numpy as np
from v3_softmax_groups import SMEM_BYTES, SOURCE  # this folder, on the path when run as a script

from cupy_kernels import common
from cupy_kernels.v3 import launch

ITERS = 200
KERNELS = {"pass_pair<0>": 128, "pass_pair<3>": 256, "pass_pair<1>": 128, "softmax_group<1>": 128,
           "softmax_group<2>": 256}  # fmt: skip


def main() -> None:
    sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
    module = common.module_with_defines(SOURCE, {"FA3_ABLATE": 0}, list(KERNELS), launch.NVRTC_OPTIONS)
    scores = cp.random.default_rng(0).standard_normal(4096, dtype=cp.float32) * 4
    cycles = cp.zeros(sms * 16, dtype=cp.int64)
    sink = cp.zeros(256, dtype=cp.float32)
    for name, threads in KERNELS.items():
        kernel = module.get_function(name)
        kernel.max_dynamic_shared_size_bytes = SMEM_BYTES
        kernel((sms,), (threads,), (scores, np.int32(ITERS), cycles, sink), shared_mem=SMEM_BYTES)
        cp.cuda.Device().synchronize()
        per_iter = float(np.median(cycles.get().reshape(sms, 16)[:, : threads // 32].max(axis=1))) / ITERS
        print(f"{name}: {per_iter:.1f} cycles per iteration", flush=True)


if __name__ == "__main__":
    main()
