"""Device probe: when the tensor cores' queue takes each wgmma instruction of a consumer warpgroup of our FA3
kernel, alone and beside a second one issuing the same.

`wgmma_hold.py` measured how long each warpgroup is held in all (alone at d = 64: 387 cycles, about as long as S
takes; two in step: 900). This probe (`wgmma_queue.cu`) stamps the clock after every wgmma instruction as well, so
the rows give, per instruction, when its warp was let go: how deep the queue is, and, when the second warpgroup comes
`delay` cycles after the first, whose instructions the tensor cores take first. One CTA on one SM; per round each
active warpgroup issues S (D / 16 wgmma m64n128k16 SS, committed) then P V (8 wgmma RS m64nDk16, committed).
Writes wgmma_queue_h200.csv: per (headdim, warpgroups, delay, warpgroup, stamp) the median over the rounds after the
first 5 of the stamp's cycles after warpgroup 0's start (stamp 0: the warpgroup's start; 1 .. n: after its n-th
wgmma; then S complete, P V complete). Run on the GPU machine from the repository root:
`PYTHONPATH=. python3 validation/probes/wgmma_queue.py OUT`. With `--softmax`, warpgroup 1 runs 0, 1 or 2 of the
consumer's softmaxes of a 64 x 128 tile (`SOFTMAXES`) before its GEMMs instead of spinning: whether another
warpgroup's elementwise work slows the first one's hand-ins; rows in wgmma_queue_softmax_h200.csv, `delay_cycles`
then holding the count of softmaxes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common
from cupy_kernels.v3 import launch

SOURCE = Path(__file__).resolve().parent / "wgmma_queue.cu"
ROUNDS = 45
WARMUP_ROUNDS = 5
SMEM_BYTES = 1024 + 32768 + 8 * 4096
DELAYS = tuple(range(0, 769, 32))
SOFTMAXES = (0, 1, 2)


def stamp_names(d: int) -> list[str]:
    s_steps = d // 16
    return ["start", *(f"s{k}" for k in range(1, s_steps + 1)), *(f"pv{k}" for k in range(1, 9)), "s_done", "pv_done"]


def main() -> None:
    out_dir = Path(sys.argv[1])
    beside = "--softmax" in sys.argv[2:]
    module = cp.RawModule(code=common.load_source(SOURCE), options=launch.NVRTC_OPTIONS)
    sink = cp.zeros(256, dtype=cp.float32)
    rows: list[dict[str, object]] = []
    for d in (64, 128):
        names = stamp_names(d)
        stamps = cp.zeros(ROUNDS * 2 * len(names), dtype=cp.int64)
        kernel = module.get_function(f"wgmma_queue{'_softmax' if beside else ''}_d{d}")
        kernel.max_dynamic_shared_size_bytes = SMEM_BYTES
        for warpgroups, delay in ((1, 0), *((2, delay) for delay in (SOFTMAXES if beside else DELAYS))):
            stamps.fill(0)
            args = (np.int32(warpgroups), np.int32(delay), np.int32(ROUNDS), stamps, sink)
            kernel((1,), (256,), args, shared_mem=SMEM_BYTES)
            per = stamps.get().reshape(ROUNDS, 2, len(names))[WARMUP_ROUNDS:].astype(np.float64)
            origin = per[:, 0, 0]
            for wg in range(warpgroups):
                for index, name in enumerate(names):
                    rows.append({
                        "headdim": d, "warpgroups": warpgroups, "delay_cycles": delay, "warpgroup": wg,
                        "stamp": name, "cycles": float(np.median(per[:, wg, index] - origin)),
                    })  # fmt: skip
        print(f"d={d}: {len(rows)} rows", flush=True)
    common.write_rows(out_dir / f"wgmma_queue{'_softmax' if beside else ''}_h200.csv", rows)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()
