"""Device probe: where our FA1-order forward kernel spends a step (one key block against one query block).

`cupy_kernels/v1/fwd.cu` compiled with FA1_PHASE_TRACE writes clock64() at seven points of each of the first
TRACE_STEPS steps of CTA TRACE_CTA (thread 0): the step's top, Q_i in smem (cp.async waited for, __syncthreads), S
arrived, the softmax done (P~ and its row sums), P~ V_j arrived, the old O, l, m loaded, the new ones stored
(issued). Shapes as the validation sweep at N = 4096: B = 4, H = 2048 / d, d = 64 and 128, bf16, not causal (one
CTA per head: 128 and 64 CTAs, one per SM). Also times the traced and the plain kernel (CUDA events, L2 flushed,
clock counted beside them) so that the stamps' own cost shows.
Writes v1_phases_h200.csv (one row per step: its key block j, query block i and each stamp, cycles from the CTA's
first stamp) and v1_phases_summary_h200.csv (per head dimension, medians over the steps of key blocks 1 on of each
interval and of the period). Run on the GPU machine from the repository root:
`PYTHONPATH=. python3 validation/probes/v1_phases.py OUT`.
"""

from __future__ import annotations

import functools
import statistics
import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common
from cupy_kernels.v1 import launch

TRACE_CTA, TRACE_STEPS = 3, 2048
SEQLEN = 4096
PHASES = ("top", "q_ready", "s_done", "softmax_done", "pv_done", "state_ready", "stored")
INTERVALS = {
    "q_wait": (0, 1),
    "s": (1, 2),
    "softmax": (2, 3),
    "pv": (3, 4),
    "state_wait": (4, 5),
    "merge_store": (5, 6),
}


def main() -> None:
    out_dir = Path(sys.argv[1])
    names = [launch.kernel_name(d, launch.fwd_config(d), False, True) for d in common.SUPPORTED_HEADDIMS]
    defines = {"FA1_PHASE_TRACE": "", "FA1_TRACE_CTA": TRACE_CTA, "FA1_TRACE_STEPS": TRACE_STEPS}
    traced = common.module_with_defines(launch.SOURCE, defines, names)
    flush, trace = common.L2Flusher(), common.ClockTrace()
    rows, summary = [], []
    for d, name in zip(common.SUPPORTED_HEADDIMS, names, strict=True):
        config = launch.fwd_config(d)
        shape = (4, 2048 // d, SEQLEN, d)
        q, k, v = (common.random_tensor(shape, "bf16", seed) for seed in range(3))
        run = functools.partial(launch.forward, q, k, v, False)
        plain = common.time_gpu(run, flush=flush, clock=trace)
        kernel = traced.get_function(name)
        kernel.max_dynamic_shared_size_bytes = launch.smem_bytes(d, config)
        common._functions[(launch.SOURCE, name)] = kernel
        stamped = common.time_gpu(run, flush=flush, clock=trace)
        stamps = cp.asnumpy(cp.ndarray((TRACE_STEPS, len(PHASES)), cp.int64, traced.get_global("fa1_phase_trace")))
        common._functions.pop((launch.SOURCE, name))
        t = stamps.astype(np.float64) - stamps[0, 0]
        per_block = SEQLEN // config.block_m
        for step in range(TRACE_STEPS):
            rows.append({"headdim": d, "step": step, "j": step // per_block, "i": step % per_block,
                         **{phase: t[step, p] for p, phase in enumerate(PHASES)}})  # fmt: skip
        steady = range(per_block, TRACE_STEPS - 1)  # key blocks 1 on: the working state is read
        medians = {f"{name}_cycles": statistics.median(t[s, b] - t[s, a] for s in steady)
                   for name, (a, b) in INTERVALS.items()}  # fmt: skip
        medians["to_next_top_cycles"] = statistics.median(t[s + 1, 0] - t[s, 6] for s in steady)
        medians["period_cycles"] = statistics.median(t[s + 1, 0] - t[s, 0] for s in steady)
        summary.append({"headdim": d, "batch": shape[0], "heads": shape[1], "seqlen": SEQLEN,
                        "plain_ms": plain.median_ms, "traced_ms": stamped.median_ms,
                        "clock_mhz": plain.probe_clock_mhz, **medians})  # fmt: skip
        print(summary[-1], flush=True)
    common.write_rows(out_dir / "v1_phases_h200.csv", rows)
    common.write_rows(out_dir / "v1_phases_summary_h200.csv", summary)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()
