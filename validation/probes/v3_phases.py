"""Device probe: where one consumer warpgroup of our FA3 forward kernel spends each key tile.

`cupy_kernels/v3/fwd.cu` compiled with FA3_PHASE_TRACE writes clock64() at six points of every key tile j of one
CTA (block (TRACE_X, TRACE_Y), in the middle of the grid), for both consumers: turn taken (ping-pong), GEMMs
issued, S_j ready, softmax done, P_{j-1} V_{j-1} done, P_j packed. Shape: B=4, H=2048/d, N=4096 (32 key tiles),
bf16, not causal, every (pingpong, intra_wg_overlap) variant, d = 64 and 128: the kernel fills the GPU as in the
validation sweep. Also times the traced and the plain kernel (CUDA events, L2 flushed, clock counted beside them)
so that the cost of the stamps shows.
Writes v3_phases_h200.csv (one row per consumer and key tile, cycles from the CTA's first stamp) and
v3_phases_summary_h200.csv (medians over the steady-state tiles 4 .. 27 of each interval and of the period).
Run on the GPU machine from the repository root: `PYTHONPATH=. python3 validation/probes/v3_phases.py OUT`.
`python3 validation/probes/v3_phases.py --summarize DIR` re-derives the summary's intervals from DIR's per-tile rows
(no GPU).
"""

from __future__ import annotations

import csv
import itertools
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from cupy_kernels import common
from cupy_kernels.common import cp  # None without CuPy: `--summarize` needs none
from cupy_kernels.v3 import launch

TRACE_X, TRACE_Y, TRACE_BLOCKS = 3, 40, 128
PHASES = ("turn", "issued", "s_ready", "softmax_done", "pv_done", "packed")
OVERLAP_ORDER = PHASES
SERIAL_ORDER = ("turn", "issued", "s_ready", "softmax_done", "packed", "pv_done")
STEADY = range(4, 28)
VARIANTS = [(pingpong, overlap) for pingpong in (True, False) for overlap in (True, False)]


def intervals(t: np.ndarray, overlap: bool) -> dict[str, float]:
    """Median cycles of each interval over the steady-state tiles, from stamps `t[consumer, tile, phase]`. Each is
    named by the stamp that ends it; the stamps come in the order the variant runs its steps: with the overlap, P V's
    wait before P is packed; without it (FA3's serial order), P is packed before P V is issued and waited for."""
    order = [PHASES.index(p) for p in (OVERLAP_ORDER if overlap else SERIAL_ORDER)]
    names = {"issued": "issue", "s_ready": "wait_s", "softmax_done": "softmax", "pv_done": "wait_pv", "packed": "pack"}
    steps = {"wait_turn": [t[c, j, order[0]] - t[c, j - 1, order[-1]] for c in range(2) for j in STEADY]}
    for before, after in itertools.pairwise(order):
        steps[names[PHASES[after]]] = [t[c, j, after] - t[c, j, before] for c in range(2) for j in STEADY]
    steps["period"] = [t[c, j + 1, order[0]] - t[c, j, order[0]] for c in range(2) for j in STEADY]
    return {f"{name}_cycles": statistics.median(values) for name, values in steps.items()}


def traced_module(names: list[str]) -> cp.RawModule:
    defines = {"FA3_PHASE_TRACE": "", "FA3_TRACE_X": TRACE_X, "FA3_TRACE_Y": TRACE_Y, "FA3_TRACE_BLOCKS": TRACE_BLOCKS}
    return common.module_with_defines(launch.SOURCE, defines, names, launch.NVRTC_OPTIONS)


def runner(tensors: tuple[cp.ndarray, ...], pingpong: bool, overlap: bool) -> Callable[[], object]:
    q, k, v, o, lse = tensors
    return lambda: launch.forward(q, k, v, False, pingpong=pingpong, intra_wg_overlap=overlap, out=(o, lse))


def main() -> None:
    out_dir = Path(sys.argv[1])
    flush, trace = common.L2Flusher(), common.ClockTrace()
    rows, summary = [], []
    for d in common.SUPPORTED_HEADDIMS:
        config = launch.fwd_config(d)
        names = [launch.kernel_name(d, config, False, pp, ov) for pp, ov in VARIANTS]
        module = traced_module(names)
        stamps = cp.ndarray((2, TRACE_BLOCKS, len(PHASES)), cp.int64, module.get_global("fa3_phase_trace"))
        shape = (4, 2048 // d, 4096, d)
        q, k, v = (common.random_tensor(shape, "bf16", seed) for seed in range(3))
        tensors = (q, k, v, cp.empty_like(q), cp.empty(shape[:3], dtype=cp.float32))
        for (pp, ov), name in zip(VARIANTS, names, strict=True):
            run = runner(tensors, pp, ov)
            launch.precompile([name])
            plain = common.time_gpu(run, flush=flush, clock=trace)
            launch._functions[name] = module.get_function(name)  # the traced build from here on
            launch._functions[name].max_dynamic_shared_size_bytes = launch.smem_bytes(d, config)
            stamps.fill(0)
            traced = common.time_gpu(run, flush=flush, clock=trace)
            launch._functions.pop(name)
            t = stamps.get().astype(np.float64)
            origin = t[:, 1:32][t[:, 1:32] > 0].min()
            for c in range(2):
                for j in range(1, 32):
                    rows.append({"headdim": d, "pingpong": pp, "intra_wg_overlap": ov, "consumer": c, "tile": j,
                                 **{p: t[c, j, i] - origin for i, p in enumerate(PHASES)}})  # fmt: skip
            summary.append({"headdim": d, "pingpong": pp, "intra_wg_overlap": ov,
                            "plain_ms": plain.median_ms, "traced_ms": traced.median_ms,
                            "plain_clock_mhz": plain.probe_clock_mhz, "traced_clock_mhz": traced.probe_clock_mhz,
                            **intervals(t, ov)})  # fmt: skip
            print(summary[-1], flush=True)
    common.write_rows(out_dir / "v3_phases_h200.csv", rows)
    common.write_rows(out_dir / "v3_phases_summary_h200.csv", summary)
    print("gpu:", common.gpu_facts())


def summarize(out_dir: Path) -> None:
    """Rewrite the intervals of DIR's summary from its per-tile stamps (the run's timings are kept)."""
    with open(out_dir / "v3_phases_h200.csv", newline="") as f:
        tiles = list(csv.DictReader(f))
    with open(out_dir / "v3_phases_summary_h200.csv", newline="") as f:
        summary = list(csv.DictReader(f))
    for row in summary:
        mine = [r for r in tiles if all(r[k] == row[k] for k in ("headdim", "pingpong", "intra_wg_overlap"))]
        t = np.zeros((2, 32, len(PHASES)))
        for r in mine:
            t[int(r["consumer"]), int(r["tile"])] = [float(r[p]) for p in PHASES]
        row.update(intervals(t, row["intra_wg_overlap"] == "True"))
    common.write_rows(out_dir / "v3_phases_summary_h200.csv", summary)


if __name__ == "__main__":
    if sys.argv[1] == "--summarize":
        summarize(Path(sys.argv[2]))
    else:
        main()
