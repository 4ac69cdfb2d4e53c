"""Device probe: the pieces of one key tile of our FA3 consumer, each alone on one SM.

Our v3 kernel at d=64 takes ~2300 cycles per key tile (`v3_phases_summary_h200.csv`) where the model takes ~1800,
and its phase stamps put the difference in the softmax and in the waits. `v3_pieces.cu` runs the kernel's own
softmax (`softmax_tile` + `pack_p_tile` of fwd.cu, a 64 x 128 score tile per warpgroup) in a loop, alone and beside a
warpgroup that keeps the tensor core busy with wgmma SS (one batch or two in flight), and the synchronisations a
consumer passes per key tile when what they wait for has already happened: an mbarrier wait on a completed phase, an
mbarrier hand-off between warpgroups, the ping-pong turn over named barriers, an empty wgmma commit and wait, and one
wgmma m64n128k16 with its fence, commit and wait. One CTA per SM on every SM; cycles of each warp from clock64.
Writes v3_pieces_h200.csv (medians over the SMs' warps). Run on the GPU machine from the repository root:
`PYTHONPATH=. python3 validation/probes/v3_pieces.py OUT`.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common
from cupy_kernels.v3 import launch

SOURCE = Path(__file__).resolve().parent / "v3_pieces.cu"
SOFTMAX_ITERS = 2000
SYNC_ITERS = 4000
SMEM_BYTES = 2048 + 8192 + 16384  # alignment slack, A (64 x 64 bf16) and B (128 x 64 bf16) of one wgmma
TC_CYCLES_PER_BATCH = 256  # 4 wgmma m64n128k16: 4 x 64 x 128 x 16 x 2 FLOP at 4096 FLOP/clk/SM
SYNC_MODES = {0: "mbarrier_wait_completed", 1: "mbarrier_handoff_x2", 2: "named_barrier_turn_x2",
              3: "wgmma_empty_commit_wait", 4: "wgmma_one_m64n128k16"}  # fmt: skip


def main() -> None:
    out_dir = Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
    names = [f"softmax_beside<{b}>" for b in range(3)] + [f"sync_cost<{m}>" for m in SYNC_MODES]
    module = cp.RawModule(code=common.load_source(SOURCE), options=launch.NVRTC_OPTIONS, name_expressions=names)
    scores = cp.random.default_rng(0).standard_normal(4096, dtype=cp.float32) * 4
    cycles = cp.zeros(sms * 8, dtype=cp.int64)
    sink = cp.zeros(256, dtype=cp.float32)
    rows: list[dict[str, object]] = []

    def run(name: str, threads: int, args: tuple[object, ...]) -> np.ndarray:
        kernel = module.get_function(name)
        kernel.max_dynamic_shared_size_bytes = SMEM_BYTES
        for _ in range(2):  # the second run is the one kept (the first warms the clocks and caches)
            cycles.fill(0)
            kernel((sms,), (threads,), args, shared_mem=SMEM_BYTES)
            cp.cuda.Device().synchronize()
        return cycles.get().reshape(sms, 8).astype(np.float64)

    alone = run("softmax_beside<0>", 128, (scores, np.int32(SOFTMAX_ITERS), np.int32(0), cycles, sink))
    per_iter_alone = float(np.median(alone[:, :4].max(axis=1))) / SOFTMAX_ITERS
    rows.append({"piece": "softmax_pack_64x128", "beside": "nothing", "iters": SOFTMAX_ITERS,
                 "cycles_per_iter": per_iter_alone, "beside_tensor_busy": 0.0})  # fmt: skip
    batches = int(2 * per_iter_alone * SOFTMAX_ITERS / TC_CYCLES_PER_BATCH)  # outlasts the softmax loop
    for beside, label in ((1, "wgmma_ss_one_batch"), (2, "wgmma_ss_two_batches")):
        c = run(f"softmax_beside<{beside}>", 256, (scores, np.int32(SOFTMAX_ITERS), np.int32(batches), cycles, sink))
        softmax_cycles = float(np.median(c[:, :4].max(axis=1)))
        tc_cycles = float(np.median(c[:, 4:].max(axis=1)))
        rows.append({"piece": "softmax_pack_64x128", "beside": label, "iters": SOFTMAX_ITERS,
                     "cycles_per_iter": softmax_cycles / SOFTMAX_ITERS,
                     "beside_tensor_busy": batches * TC_CYCLES_PER_BATCH / tc_cycles})  # fmt: skip
    for mode, label in SYNC_MODES.items():
        threads = 256 if mode in (1, 2) else 128
        c = run(f"sync_cost<{mode}>", threads, (np.int32(SYNC_ITERS), cycles, sink))
        rows.append({"piece": label, "beside": "nothing", "iters": SYNC_ITERS,
                     "cycles_per_iter": float(np.median(c[:, 0])) / SYNC_ITERS, "beside_tensor_busy": 0.0})  # fmt: skip
    for row in rows:
        print(row, flush=True)
    with open(out_dir / "v3_pieces_h200.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()
