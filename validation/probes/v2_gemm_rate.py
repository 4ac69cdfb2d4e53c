"""Device probe: the rate of our FA2 forward kernel's two products alone, from one and two warps per scheduler.

Runs the kernels of `v2_gemm_rate.cu` (S = Q K^T and O += P V exactly as `cupy_kernels/v2/fwd.cu` computes them,
and an mma.sync loop whose operands change on every instruction) as one wave of 132 x `ctas_per_sm` CTAs of
4 warps, with their dynamic shared memory sized so that 1 or 2 CTAs fit on an SM, and reports FLOP per SM per
clock from the slowest CTA's cycle count. Writes v2_gemm_rate_h200.csv.
Run on the GPU machine from the repository root: `PYTHONPATH=. python3 validation/probes/v2_gemm_rate.py OUT`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common

SOURCE = Path(__file__).resolve().parent / "v2_gemm_rate.cu"
ONE_CTA_SMEM_BYTES = 120 * 1024
TWO_CTA_SMEM_BYTES = 64 * 1024
WARPS = 4
MMA_FLOP = 2 * 16 * 8 * 16


def kernels() -> dict[str, float]:
    """Name expression -> FLOP per warp per loop iteration."""
    out: dict[str, float] = {}
    # (128, 64, 2): d = 128 with a warp's two m16 groups sharing each K/V fragment, as fwd.cu since the sixteenth
    # session (written to v2_gemm_rate_2026-12-03_h200.csv beside the earlier run's file)
    for d, block_n, mgs in ((64, 128, 2), (128, 64, 1), (128, 64, 2)):
        flop = 2.0 * 16 * mgs * block_n * d
        out[f"s_gemm<{d}, {block_n}, {mgs}>"] = flop
        out[f"pv_gemm<{d}, {block_n}, {mgs}>"] = flop
    for chains in (8, 16):
        out[f"mma_distinct<{chains}>"] = float(chains * MMA_FLOP)
    return out


def main() -> None:
    out_dir = Path(sys.argv[1])
    sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
    flop_per_iter = kernels()
    module = cp.RawModule(
        code=common.load_source(SOURCE), options=common.NVRTC_OPTIONS, name_expressions=list(flop_per_iter)
    )
    sink = cp.zeros(1, dtype=cp.uint32)
    rows = []
    for name, flop in flop_per_iter.items():
        kernel = module.get_function(name)
        kernel.max_dynamic_shared_size_bytes = ONE_CTA_SMEM_BYTES
        for ctas_per_sm, smem in ((1, ONE_CTA_SMEM_BYTES), (2, TWO_CTA_SMEM_BYTES)):
            iters = 2000
            cycles = cp.zeros(sms * ctas_per_sm, dtype=cp.uint64)
            for _ in range(3):
                kernel((sms * ctas_per_sm,), (32 * WARPS,), (np.int32(iters), sink, cycles), shared_mem=smem)
            cp.cuda.runtime.deviceSynchronize()
            per_sm = ctas_per_sm * WARPS * flop * iters
            rate = per_sm / float(cycles.max())
            rows.append({"kernel": name, "warps_per_scheduler": ctas_per_sm, "flop_per_sm_per_clk": rate,
                         "cycles_per_iteration": float(cycles.max()) / iters})  # fmt: skip
            print(rows[-1], flush=True)
    common.write_rows(out_dir / "v2_gemm_rate_h200.csv", rows)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()
