"""Device probe: the queue MUFU.EX2 instructions wait in (`mufu_queue.cu`; the question comes from
`docs/results/hold_38/README.txt`, where the softmax pair's extra time is mio_throttle on its exps).

ptxas gives back-to-back exps a stall count of 8 (the MUFU's rate on one scheduler), so one warp's burst issues an
exp every 8 cycles and never fills a queue; two warps on one scheduler issue twice as fast as the MUFU drains, and
once the queue is full each exp waits for one to leave. Per burst length and set of bursting warps (ACTIVE: 0 warp 0
alone; 1 warps 0 and 4, one scheduler; 2 warps 0 and 1, two schedulers; 3 all eight), the cycles from the first exp
to the last one's issue and to the last result read, per burst, median over the SMs and warps that burst (min and
max beside). Then `shfl_beside`: warp 0's chain of dependent SHFL.BFLY (the quad reduction of the row maximum) alone,
beside a warp of exps on its scheduler, beside one on another scheduler, and beside a warp of independent FFMAs on its
scheduler: cycles per shuffle, median over the SMs (min, max). Writes `mufu_queue.csv`, `shfl_beside.csv` and the GPU
facts. Run on the GPU machine from the repository root:
`PYTHONPATH=. python3 validation/probes/mufu_queue.py OUT`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common

SOURCE = Path(__file__).resolve().parent / "mufu_queue.cu"
BURSTS = (4, 8, 16, 24, 32, 48, 64)
ACTIVE = {0: "warp 0", 1: "warps 0, 4 (one scheduler)", 2: "warps 0, 1 (two schedulers)", 3: "all 8"}
WARPS = 8
REPS = 16  # QUEUE_REPS in mufu_queue.cu
SMEM_BYTES = 120 * 1024  # over half the SM's shared memory: one CTA per SM
BESIDE = {0: "nothing", 1: "exps, same scheduler", 2: "exps, another scheduler", 3: "independent FFMAs, same scheduler"}
SHFL_ITERS = 256  # x 32 dependent shuffles, about 24 cycles each
BUSY_ITERS = 4096  # x 16 exps or FFMAs: longer than the shuffles' chain


def spread(name: str, values: np.ndarray) -> dict[str, float]:
    """The median, least and largest of `values` as `name`_median, _min, _max."""
    return {
        f"{name}_median": float(np.median(values)),
        f"{name}_min": float(values.min()),
        f"{name}_max": float(values.max()),
    }


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    facts = common.write_gpu_facts(out / "mufu_queue_gpu.csv")
    sms = facts["sm_count"]
    names = [f"mufu_queue<{burst}, {active}>" for burst in BURSTS for active in ACTIVE]
    module = common.module_with_defines(SOURCE, {}, names, ("-std=c++17", "-arch=sm_90a"))
    seed = cp.asarray(np.linspace(0.1, 0.9, 64).astype(np.float32))
    sink = cp.zeros(256, dtype=cp.float32)
    issue = cp.zeros(sms * WARPS, dtype=cp.int64)
    done = cp.zeros(sms * WARPS, dtype=cp.int64)
    rows = []
    for burst in BURSTS:
        for active, label in ACTIVE.items():
            kernel = module.get_function(f"mufu_queue<{burst}, {active}>")
            kernel.max_dynamic_shared_size_bytes = SMEM_BYTES
            for _ in range(2):  # the second launch is kept (the first warms clocks and caches)
                issue.fill(0)
                done.fill(0)
                kernel((sms,), (32 * WARPS,), (seed, issue, done, sink), shared_mem=SMEM_BYTES)
                cp.cuda.Device().synchronize()
            issued, finished = (array.get().astype(np.float64) / REPS for array in (issue, done))
            ran = issued > 0
            rows.append(
                {
                    "burst": burst,
                    "active": active,
                    "warps": label,
                    **spread("issue_cycles", issued[ran]),
                    **spread("done_cycles", finished[ran]),
                }
            )
            print(rows[-1], flush=True)
    common.write_rows(out / "mufu_queue.csv", rows)
    shfl_beside(out, sms, seed, sink)


def shfl_beside(out: Path, sms: int, seed: object, sink: object) -> None:
    """Warp 0's shuffle chain beside each kind of other warp (`BESIDE`), to `shfl_beside.csv`."""
    module = common.module_with_defines(
        SOURCE, {}, [f"shfl_beside<{mode}>" for mode in BESIDE], ("-std=c++17", "-arch=sm_90a")
    )
    cycles = cp.zeros(sms, dtype=cp.int64)
    rows = []
    for mode, label in BESIDE.items():
        kernel = module.get_function(f"shfl_beside<{mode}>")
        kernel.max_dynamic_shared_size_bytes = SMEM_BYTES
        for _ in range(2):  # the second launch is kept
            cycles.fill(0)
            args = (seed, np.int32(SHFL_ITERS), np.int32(BUSY_ITERS), cycles, sink)
            kernel((sms,), (32 * WARPS,), args, shared_mem=SMEM_BYTES)
            cp.cuda.Device().synchronize()
        per_shuffle = cycles.get().astype(np.float64) / (SHFL_ITERS * 32)
        rows.append({"mode": mode, "beside": label, **spread("cycles_per_shuffle", per_shuffle)})
        print(rows[-1], flush=True)
    common.write_rows(out / "shfl_beside.csv", rows)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
