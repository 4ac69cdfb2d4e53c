"""Device probe: two softmax warpgroups per SM in step and in turns, on every SM at once (`softmax_turns.cu`), so that
Nsight Compute (`softmax_turns_ncu.sh`) can say where each state spends its time. `softmax_offset.py` found the pair
in step from a common start and half a period apart from any start delay of 64 cycles or more, both at 1325-1331
cycles an iteration, where the issue toy's greedy schedulers put the turns at 1159 (docs/results/greedy_39/).

Per start delay (`DELAYS`), each warpgroup's cycles per iteration over `ITERS` iterations (its slowest warp), median
over the SMs (min, max beside). Writes `softmax_turns.csv` and the GPU facts. Run on the GPU machine from the
repository root: `PYTHONPATH=. python3 validation/probes/softmax_turns.py OUT`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common
from cupy_kernels.v3 import launch

SOURCE = Path(__file__).resolve().parent / "softmax_turns.cu"
DELAYS = (0, 64, 512, 1024)
ITERS = 400


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    facts = common.write_gpu_facts(out / "softmax_turns_gpu.csv")
    sms = facts["sm_count"]
    kernel = cp.RawModule(code=common.load_source(SOURCE), options=launch.NVRTC_OPTIONS).get_function("softmax_turns")
    scores = cp.random.default_rng(0).standard_normal(4096, dtype=cp.float32) * 4  # as softmax_offset.py
    cycles = cp.zeros(8 * sms, dtype=cp.int64)
    sink = cp.zeros(256, dtype=cp.float32)
    rows = []
    for delay in DELAYS:
        for _ in range(2):  # the second launch is kept (the first warms clocks and caches)
            cycles.fill(0)
            kernel((sms,), (256,), (scores, np.int32(delay), np.int32(ITERS), cycles, sink))
            cp.cuda.Device().synchronize()
        per_iteration = cycles.get().reshape(sms, 2, 4).max(axis=2).astype(np.float64) / ITERS
        for wg in range(2):
            values = per_iteration[:, wg]
            rows.append(
                {
                    "delay": delay,
                    "warpgroup": wg,
                    "iters": ITERS,
                    "cycles_per_iter_median": float(np.median(values)),
                    "cycles_per_iter_min": float(values.min()),
                    "cycles_per_iter_max": float(values.max()),
                }
            )
            print(rows[-1], flush=True)
    common.write_rows(out / "softmax_turns.csv", rows)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
