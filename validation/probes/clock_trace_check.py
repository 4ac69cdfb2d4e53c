"""Device probe: does `cupy_kernels.common.ClockTrace` (the probe warp that counts the SM clock beside timed runs)
slow the kernels it measures, and does it agree with a probe that spans a back-to-back loop?

For each workload (our FA2 forward, FA2 backward and FA3 forward at B=4, H=2048/d, N=4096, bf16, d=64 and 128),
`ROUNDS` alternating timings with `common.time_gpu` as `cupy_kernels.selfcheck` runs it (outputs poisoned, L2
flushed): once without the trace, once with it. Writes clock_trace_check_h200.csv: workload, round, the median
ms without and with the trace, the traced clock, and nvidia-smi's median clock in the traced window.
Run on the GPU machine from the repository root: `PYTHONPATH=. python3 validation/probes/clock_trace_check.py OUT`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import cupy as cp

from cupy_kernels import common
from cupy_kernels.v2 import launch as fa2
from cupy_kernels.v3 import launch as fa3

ROUNDS = 3


def workloads(d: int) -> tuple[tuple[str, Callable[[], object]], ...]:
    shape = (4, 2048 // d, 4096, d)
    q, k, v, do = (common.random_tensor(shape, "bf16", seed) for seed in range(4))
    o, lse = cp.empty_like(q), cp.empty(shape[:3], dtype=cp.float32)
    fa2.forward(q, k, v, False, out=(o, lse))
    grads = tuple(cp.empty_like(q) for _ in range(3))
    return (
        ("v2 fwd", lambda: fa2.forward(q, k, v, False, out=(o, lse))),
        ("v2 bwd", lambda: fa2.backward(q, k, v, o, lse, do, False, out=grads)),
        ("v3 fwd", lambda: fa3.forward(q, k, v, False, out=(o, lse))),
    )


def main() -> None:
    out_dir = Path(sys.argv[1])
    flush, trace, sampler = common.L2Flusher(), common.ClockTrace(), common.ClockSampler()
    rows = []
    for d in (64, 128):
        works = workloads(d)
        for name, work in works:
            for round_ in range(ROUNDS):
                plain = common.time_gpu(work, flush=flush)
                traced = common.time_gpu(work, flush=flush, clock=trace)
                rows.append(
                    {
                        "workload": name,
                        "headdim": d,
                        "round": round_,
                        "ms_without_trace": plain.median_ms,
                        "ms_with_trace": traced.median_ms,
                        "trace_mhz": traced.probe_clock_mhz,
                        "smi_mhz": sampler.median_between(traced.t_start, traced.t_end),
                    }
                )
                print(rows[-1], flush=True)
    sampler.close()
    common.write_rows(out_dir / "clock_trace_check_h200.csv", rows)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()
