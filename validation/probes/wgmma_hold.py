"""Device probe: how long a consumer warpgroup of our FA3 kernel is held issuing its GEMMs, alone and beside a
second one issuing the same, and when its results are ready.

The model holds an issuing warpgroup until the tensor cores have taken all but `tensor_core.issue_queue_instructions`
of its wgmma instructions, and two issuing at once interleave instruction by instruction. Without ping-pong our
consumers run in lockstep at d = 64 (the phase probe): both issue at once. `wgmma_hold.cu`: one CTA on one SM, per
round each active warpgroup issues S (D / 16 wgmma m64n128k16 SS, committed) and P V (8 wgmma RS m64nDk16,
committed), the second warpgroup `delay` cycles after the first, and stamps the start, the last instruction's issue,
S complete and P V complete. Writes wgmma_hold_h200.csv (medians per warpgroup over the rounds after the first 5).
Run on the GPU machine from the repository root: `PYTHONPATH=. python3 validation/probes/wgmma_hold.py OUT`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common
from cupy_kernels.v3 import launch

SOURCE = Path(__file__).resolve().parent / "wgmma_hold.cu"
ROUNDS = 45
WARMUP_ROUNDS = 5
SMEM_BYTES = 1024 + 32768 + 8 * 4096
# (warpgroups, delay of the second in cycles)
SETTINGS = ((1, 0), (2, 0), (2, 64), (2, 128), (2, 256), (2, 512), (2, 1024))


def main() -> None:
    out_dir = Path(sys.argv[1])
    module = cp.RawModule(code=common.load_source(SOURCE), options=launch.NVRTC_OPTIONS)
    stamps = cp.zeros(ROUNDS * 2 * 4, dtype=cp.int64)
    sink = cp.zeros(256, dtype=cp.float32)
    rows: list[dict[str, object]] = []
    for d in (64, 128):
        kernel = module.get_function(f"wgmma_hold_d{d}")
        kernel.max_dynamic_shared_size_bytes = SMEM_BYTES
        for warpgroups, delay in SETTINGS:
            stamps.fill(0)
            args = (np.int32(warpgroups), np.int32(delay), np.int32(ROUNDS), stamps, sink)
            kernel((1,), (256,), args, shared_mem=SMEM_BYTES)
            per = stamps.get().reshape(ROUNDS, 2, 4)[WARMUP_ROUNDS:].astype(np.float64)
            for wg in range(warpgroups):
                t0 = per[:, wg, 0]
                rows.append({
                    "headdim": d, "warpgroups": warpgroups, "delay_cycles": delay, "warpgroup": wg,
                    "own_tensor_cycles": 2 * d * 4,  # S and P V of one 64-row warpgroup at 4096 FLOP/clk/SM
                    "start_after_wg0": float(np.median(t0 - per[:, 0, 0])),
                    "hold_cycles": float(np.median(per[:, wg, 1] - t0)),
                    "s_done_cycles": float(np.median(per[:, wg, 2] - t0)),
                    "pv_done_cycles": float(np.median(per[:, wg, 3] - t0)),
                })  # fmt: skip
                print(rows[-1], flush=True)
    common.write_rows(out_dir / "wgmma_hold_h200.csv", rows)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()
