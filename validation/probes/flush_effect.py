"""Device probe: how much our timings depend on how L2 is flushed before each run.

`common.L2Flusher` fills a buffer of four times L2 before every timed run, so each run starts with L2 full of dirty
lines: its first misses must write them back, which the simulator (an empty L2 at launch) does not model. The
`tma_cold` probe showed copies from HBM with every SM busy taking about twice as long as on an idle GPU. This probe
times our v3 forward (ping-pong and overlap on or both off) and v2 forward on some of the validation's
configurations two ways: the usual fill, and a read of the same buffer (L2 left clean). Both flushes are queued
without waiting for them, so each timed launch is queued behind one: with no flush, the host's launch time would
fall inside the run's CUDA events (the GPU idle when the start event is recorded). Writes flush_effect_h200.csv.
Run on the GPU machine from the repository root: `PYTHONPATH=. python3 validation/probes/flush_effect.py OUT`.
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

import cupy as cp

from cupy_kernels import common, selfcheck
from cupy_kernels.v2 import launch as v2_launch
from cupy_kernels.v3 import launch as v3_launch

SEQLENS = (512, 2048, 16384)


def main() -> None:
    out_dir = Path(sys.argv[1])
    flushes = {"fill": common.L2Flusher(), "read": common.L2Flusher(clean=True)}
    rows: list[dict[str, object]] = []
    for d in (64, 128):
        for n in SEQLENS:
            b, h = selfcheck.TOKENS // n, selfcheck.HIDDEN // d
            q, k, v = (common.random_tensor((b, h, n, d), "bf16", i) for i in range(3))
            o = cp.empty_like(q)
            lse = cp.empty((b, h, n), dtype=cp.float32)
            out = (o, lse)
            kernels = {
                "v3_pp_iwo": partial(v3_launch.forward, q, k, v, pingpong=True, intra_wg_overlap=True, out=out),
                "v3_nopp_noiwo": partial(v3_launch.forward, q, k, v, pingpong=False, intra_wg_overlap=False, out=out),
                "v2": partial(v2_launch.forward, q, k, v, out=out),
            }
            for name, run in kernels.items():
                for flush_name, flush in flushes.items():
                    timing = common.time_gpu(run, flush=flush)
                    rows.append({
                        "kernel": name, "headdim": d, "seqlen": n, "batch": b, "heads": h, "flush": flush_name,
                        "time_ms_median": timing.median_ms, "time_ms_p10": timing.p10_ms,
                        "time_ms_p90": timing.p90_ms, "runs": timing.runs,
                    })  # fmt: skip
                    print(rows[-1], flush=True)
            cp.get_default_memory_pool().free_all_blocks()
    common.write_rows(out_dir / "flush_effect_h200.csv", rows)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()
