"""Device probe: the SM clock while our attention kernels run, counted by a probe that runs beside them.

`effective_clock.py` reads the clock right after a workload (a spin kernel on every SM) and Nsight Compute reads it
while profiling one replayed launch; for our FA2 forward they disagree (1980 against ~1.8 GHz). Here a one-warp
probe on its own stream spins for `PROBE_NS` counting SM cycles against `%globaltimer`, while a back-to-back loop
of the workload runs on another stream and fills the GPU (the probe's one warp shares its SM with the workload's
CTAs; all SMs share one clock). Workloads: our FA2 and FA3 forward kernels (B=4, H=2048/d, N=4096, bf16, d=64 and
128). Writes concurrent_clock_h200.csv: workload, the probe's clock, the workload's median ms per launch, and
the probe's clock with the GPU otherwise idle before it.
Run on the GPU machine from the repository root: `PYTHONPATH=. python3 validation/probes/concurrent_clock.py OUT`
(the probe kernel is `effective_clock.PROBE`, launched as one block).
"""

from __future__ import annotations

import csv
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cupy as cp
from effective_clock import PROBE  # run as a script: this folder is on sys.path; one block writes out[0..1]

from cupy_kernels.common import to_bf16_bits
from cupy_kernels.v2 import launch as fa2
from cupy_kernels.v3 import launch as fa3

PROBE_NS = 40_000_000  # 40 ms: the workload loop below runs longer
LAUNCHES = 60  # 60 launches of >= 0.8 ms each


def probe_during(work: Callable[[], object]) -> tuple[float, float]:
    """(probe MHz, ms per launch of `work`), the probe started just before a loop of LAUNCHES launches."""
    out = cp.zeros(2, dtype=cp.uint64)
    probe_stream, work_stream = cp.cuda.Stream(non_blocking=True), cp.cuda.Stream(non_blocking=True)
    with work_stream:
        work()  # warm-up: compile and settle
    work_stream.synchronize()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    with probe_stream:
        PROBE((1,), (32,), (out, cp.uint64(PROBE_NS)))
    with work_stream:
        start.record()
        for _ in range(LAUNCHES):
            work()
        end.record()
    end.synchronize()
    probe_stream.synchronize()
    ns, cycles = (float(x) for x in out.get())
    return 1e3 * cycles / ns, float(cp.cuda.get_elapsed_time(start, end)) / LAUNCHES


def idle_mhz() -> float:
    out = cp.zeros(2, dtype=cp.uint64)
    PROBE((1,), (32,), (out, cp.uint64(PROBE_NS)))
    cp.cuda.runtime.deviceSynchronize()
    ns, cycles = (float(x) for x in out.get())
    return 1e3 * cycles / ns


def main() -> None:
    out_dir = Path(sys.argv[1])
    rng = cp.random.default_rng(0)
    rows = []
    for d in (64, 128):
        shape = (4, 2048 // d, 4096, d)
        qkv = tuple(to_bf16_bits(rng.standard_normal(shape, dtype=cp.float32)) for _ in range(3))
        works: tuple[tuple[str, Callable[[], object]], ...] = (
            ("v2 fwd", lambda qkv=qkv: fa2.forward(*qkv)),
            ("v3 fwd", lambda qkv=qkv: fa3.forward(*qkv)),
        )
        for name, work in works:
            time.sleep(1.0)
            before = idle_mhz()
            mhz, ms = probe_during(work)
            rows.append({"workload": name, "headdim": d, "probe_mhz": mhz, "ms_per_launch": ms, "idle_mhz": before})
            print(rows[-1])
    out_dir.mkdir(parents=True, exist_ok=True)
    with (out_dir / "concurrent_clock_h200.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()
