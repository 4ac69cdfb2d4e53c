"""Device probe: how far apart our FA3 kernel's two consumers are, key tile by key tile, from a chosen start.

`v3_phase_offset.py` timed whole kernels whose consumer 1 starts FA3_CONSUMER1_DELAY cycles late; this one also
traces one CTA of each (FA3_PHASE_TRACE, as `v3_phases.py`: six stamps per consumer and key tile), so the rows show
the offset between the consumers at every key tile: whether it holds, grows (towards turns) or shrinks (into
lockstep). Shape: B = 2, H = 2048 / d, N = 8192 (64 key tiles), bf16, not causal, the kernel filling the GPU as in
the validation sweep; delays 0, 128, 256, 512 and 1024 cycles; ping-pong off with and without intra-warpgroup overlap,
and on with it (a control), at d = 64 and 128. Writes v3_offset_trace_h200.csv (one row per build, variant,
consumer and key tile: cycles from the CTA's first stamp) and v3_offset_trace_runs_h200.csv (each traced run's
time and counted clock). Run on the GPU machine from the repository root:
`PYTHONPATH=. python3 validation/probes/v3_offset_trace.py OUT`.
"""

from __future__ import annotations

import functools
import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import cupy as cp
import numpy as np

from cupy_kernels import common
from cupy_kernels.v3 import launch

DELAYS = (0, 128, 256, 512, 1024)
VARIANTS = ((False, True), (False, False), (True, True))  # (pingpong, intra_wg_overlap)
TRACE_X, TRACE_Y, TRACE_BLOCKS = 3, 20, 128  # y = 20 exists at both head dimensions (B x H = 64, 32)
PHASES = ("turn", "issued", "s_ready", "softmax_done", "pv_done", "packed")
SEQLEN, BATCH = 8192, 2


def names() -> list[str]:
    return [
        launch.kernel_name(d, launch.fwd_config(d), False, pp, ov)
        for d in common.SUPPORTED_HEADDIMS
        for pp, ov in VARIANTS
    ]


def module(delay: int) -> Any:
    defines = {
        "FA3_PHASE_TRACE": "",
        "FA3_TRACE_X": TRACE_X,
        "FA3_TRACE_Y": TRACE_Y,
        "FA3_TRACE_BLOCKS": TRACE_BLOCKS,
        "FA3_CONSUMER1_DELAY": delay,
    }
    return common.module_with_defines(launch.SOURCE, defines, names(), launch.NVRTC_OPTIONS)


def _compile(delay: int) -> None:
    module(delay).get_function(names()[0])  # compiles the whole module into CuPy's disk cache


def main() -> None:
    out_dir = Path(sys.argv[1])
    with ProcessPoolExecutor(len(DELAYS), mp_context=multiprocessing.get_context("spawn")) as pool:
        list(pool.map(_compile, DELAYS))
    flush, clock = common.L2Flusher(), common.ClockTrace()
    rows: list[dict[str, object]] = []
    runs: list[dict[str, object]] = []
    for delay in DELAYS:
        built = module(delay)
        stamps = cp.ndarray((2, TRACE_BLOCKS, len(PHASES)), cp.int64, built.get_global("fa3_phase_trace"))
        for d in common.SUPPORTED_HEADDIMS:
            config = launch.fwd_config(d)
            shape = (BATCH, 2048 // d, SEQLEN, d)
            q, k, v = (common.random_tensor(shape, "bf16", seed) for seed in range(3))
            o, lse = cp.empty_like(q), cp.empty(shape[:3], dtype=cp.float32)
            for pp, ov in VARIANTS:
                name = launch.kernel_name(d, config, False, pp, ov)
                launch._functions[name] = built.get_function(name)
                launch._functions[name].max_dynamic_shared_size_bytes = launch.smem_bytes(d, config)
                stamps.fill(0)
                run = functools.partial(launch.forward, q, k, v, False, pingpong=pp, intra_wg_overlap=ov, out=(o, lse))
                timing = common.time_gpu(run, flush=flush, clock=clock)
                launch._functions.pop(name)
                t = stamps.get().astype(np.float64)
                tiles = SEQLEN // 128
                origin = t[:, :tiles][t[:, :tiles] > 0].min()
                for c in range(2):
                    for j in range(tiles):
                        rows.append({"delay": delay, "headdim": d, "pingpong": pp, "intra_wg_overlap": ov,
                                     "consumer": c, "tile": j,
                                     **{p: t[c, j, i] - origin for i, p in enumerate(PHASES)}})  # fmt: skip
                runs.append({"delay": delay, "headdim": d, "pingpong": pp, "intra_wg_overlap": ov,
                             "ms": timing.median_ms, "clock_mhz": timing.probe_clock_mhz})  # fmt: skip
                print(runs[-1], flush=True)
    common.write_rows(out_dir / "v3_offset_trace_h200.csv", rows)
    common.write_rows(out_dir / "v3_offset_trace_runs_h200.csv", runs)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()
