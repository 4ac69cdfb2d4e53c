"""Device probe: the SM's F2FP throughput (`f2fp_rate.cu`), which the model's softmax mix charges to the ALU pipe
at `alu.ops_per_cycle` (64 per SM per cycle on Hopper, the CUDA guide's rate for 32-bit compare/min/max).

Each kernel runs 8 independent chains per thread of one instruction (F2FP `cvt.rn.bf16x2.f32` alone, F2FP with a
LOP3 mask after it, FMNMX, FFMA), at 1 to 16 warps per scheduler (CTAs of 128 threads x 1-16 per SM, one wave).
Rate per SM = the SM's thread-instructions of the kind over its cycles (clock64 from its first CTA's start to its last
CTA's end), median over the SMs. Writes `f2fp_rate_h200.csv` and the GPU facts (`f2fp_rate_gpu.txt`). Run on the GPU
machine from the repository root: `PYTHONPATH=. python3 validation/probes/f2fp_rate.py OUT`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common

SOURCE = Path(__file__).resolve().parent / "f2fp_rate.cu"
KERNELS = ("rate_f2fp", "rate_f2fp_masked", "rate_fmnmx", "rate_ffma")
CHAINS = 8
ITERS = 4096
THREADS = 128
CTAS_PER_SM = (1, 2, 4, 8, 16)


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    facts = common.gpu_facts()
    (out / "f2fp_rate_gpu.txt").write_text(f"{facts}\n", encoding="utf-8")
    module = cp.RawModule(code=common.load_source(SOURCE), options=("-std=c++17", "-arch=sm_90a"))
    sms = facts["sm_count"]
    seed = cp.asarray(np.linspace(0.5, 1.5, 32, dtype=np.float32))
    sink = cp.zeros(1, dtype=cp.float32)
    rows = []
    for name in KERNELS:
        kernel = module.get_function(name)
        for per_sm in CTAS_PER_SM:
            ctas = per_sm * sms
            stamps = cp.zeros(3 * ctas, dtype=cp.uint64)
            for _ in range(2):  # the first launch warms up
                kernel((ctas,), (THREADS,), (seed, np.int32(ITERS), sink, stamps))
            cp.cuda.Device().synchronize()
            s = stamps.get().reshape(ctas, 3).astype(np.int64)
            rates = []
            for sm in np.unique(s[:, 0]):
                mine = s[s[:, 0] == sm]
                cycles = mine[:, 2].max() - mine[:, 1].min()
                rates.append(len(mine) * THREADS * ITERS * CHAINS / cycles)
            per_scheduler = per_sm * THREADS // 32 // 4
            rows.append(
                {
                    "kernel": name,
                    "ctas_per_sm": per_sm,
                    "warps_per_scheduler": per_scheduler,
                    "sms_seen": len(rates),
                    "per_sm_per_cycle_median": float(np.median(rates)),
                    "per_sm_per_cycle_min": float(np.min(rates)),
                    "per_sm_per_cycle_max": float(np.max(rates)),
                }
            )
            print(rows[-1], flush=True)
    common.write_rows(out / "f2fp_rate_h200.csv", rows)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
