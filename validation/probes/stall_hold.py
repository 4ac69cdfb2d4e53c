"""Device probe: does a warp's compiler stall count hold its scheduler? (`stall_hold.cu`; the question comes from
`docs/results/sass_toy_35/README.txt`, where a toy SM fits two softmax warpgroups' offset-independent period only if
it does.)

One CTA of 8 warps per SM (dynamic shared memory over half the SM's forces one), warps w and w + 4 on one scheduler;
per mode of `stall_hold.cu` each warp's cycles per step of its loop (an FFMA, or a MUFU.EX2 + FADD / MUFU.EX2 pair),
median over the SMs. Mode 1 answers the question: two dependent-FFMA warps on a scheduler take 4 cycles per FFMA
each if one issues in the other's stall counts, 8 if a stall count holds the scheduler. Also the latency of a
MUFU.EX2 -> FADD -> MUFU.EX2 chain against MUFU.EX2 -> MUFU.EX2's (the softmax's exp feeding its row sum). Writes
`stall_hold_h200.csv` and the GPU facts. Run on the GPU machine from the repository root:
`PYTHONPATH=. python3 validation/probes/stall_hold.py OUT`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common

SOURCE = Path(__file__).resolve().parent / "stall_hold.cu"
MODES = {0: ("chain", None), 1: ("chain", "chain"), 2: ("chain", "independent"), 3: ("independent", None),
         4: ("independent", "independent"), 5: ("mufu_fadd", None), 6: ("mufu_mufu", None)}  # fmt: skip
NAMES = [f"stall_hold<{mode}>" for mode in MODES]
ITERS = 4096
STEPS_PER_ITER = 32
WARPS = 8
SMEM_BYTES = 120 * 1024  # over half the SM's shared memory: one CTA per SM


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    facts = common.write_gpu_facts(out / "stall_hold_gpu.csv")
    sms = facts["sm_count"]
    module = common.module_with_defines(SOURCE, {}, NAMES, ("-std=c++17", "-arch=sm_90a"))
    seed = cp.asarray(np.concatenate([[0.99951171875, 0.25], np.linspace(0.1, 0.9, 32)]).astype(np.float32))
    sink = cp.zeros(256, dtype=cp.float32)
    cycles = cp.zeros(sms * WARPS, dtype=cp.int64)
    rows = []
    for mode, name in zip(MODES, NAMES, strict=True):
        kernel = module.get_function(name)
        kernel.max_dynamic_shared_size_bytes = SMEM_BYTES
        for _ in range(2):  # the second launch is kept (the first warms clocks and caches)
            cycles.fill(0)
            kernel((sms,), (32 * WARPS,), (seed, np.int32(ITERS), cycles, sink), shared_mem=SMEM_BYTES)
            cp.cuda.Device().synchronize()
        per_warp = cycles.get().reshape(sms, WARPS).astype(np.float64) / (ITERS * STEPS_PER_ITER)
        for group, kind in enumerate(MODES[mode]):
            if kind is None:
                continue
            warps = per_warp[:, 4 * group : 4 * group + 4]
            rows.append(
                {
                    "mode": mode,
                    "warps": "0-3" if group == 0 else "4-7",
                    "loop": kind,
                    "beside": MODES[mode][1 - group] or "nothing",
                    "cycles_per_step_median": float(np.median(warps)),
                    "cycles_per_step_min": float(warps.min()),
                    "cycles_per_step_max": float(warps.max()),
                }
            )
            print(rows[-1], flush=True)
    common.write_rows(out / "stall_hold_h200.csv", rows)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
