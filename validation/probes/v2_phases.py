"""Device probe: where each warp of our FA2 forward kernel spends a key tile, at two and at one CTA per SM.

`cupy_kernels/v2/fwd.cu` compiled with FA2_PHASE_TRACE writes clock64() at six points of every key tile j (and
pass, at d=128 in the kernel before the sixteenth session, whose m16 groups ran one after the other) of one CTA
(block (TRACE_X, TRACE_Y), in the middle of the grid), for all four warps: loop top,
K/V tile published (cp.async wait + __syncthreads), S = Q K^T issued, row max and O rescale done (S arrived), P
packed (exps done), O += P V issued. Shape: B=4, H=2048/d, N=4096, bf16, not causal, d = 64 and 128: the kernel
fills the GPU as in the validation sweep. Each shape runs at its natural occupancy (2 CTAs of 4 warps per SM:
two warps per scheduler) and with its dynamic shared memory padded so that only one CTA fits (one warp per
scheduler), which separates a warp's own dependency chains from the sharing of the SM's pipes.
Also times the traced and the plain kernel (CUDA events, L2 flushed, clock counted beside them), and measures
the mma.sync rate that 1, 2 and 8 warps per scheduler reach with 4 or 8 independent accumulators per warp
(`cupy_kernels/calibrate/compute.cu`'s `mma_sync_rate`, one CTA of 4 x warps per scheduler per SM, or 4 CTAs of
8 warps: the calibration's own launch), so the phases can be read against what the tensor pipe can give a warp.
Writes v2_phases_h200.csv (one row per warp and slot, cycles from the CTA's first stamp),
v2_phases_summary_h200.csv (medians over the steady-state tiles of each interval and of the period) and
mma_sync_occupancy_h200.csv.
Run on the GPU machine from the repository root: `PYTHONPATH=. python3 validation/probes/v2_phases.py OUT`.
"""

from __future__ import annotations

import functools
import statistics
import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common
from cupy_kernels.calibrate import runner as calibrate
from cupy_kernels.v2 import launch

TRACE_X, TRACE_Y, TRACE_SLOTS = 3, 40, 128
PHASES = ("top", "synced", "s_issued", "max_done", "exp_done", "pv_issued")
ONE_CTA_SMEM_BYTES = 120 * 1024  # two of these exceed the SM's 228 KiB: one CTA per SM
BATCH, SEQLEN = 4, 4096


def traced_module(names: list[str]) -> cp.RawModule:
    defines = {"FA2_PHASE_TRACE": "", "FA2_TRACE_X": TRACE_X, "FA2_TRACE_Y": TRACE_Y, "FA2_TRACE_SLOTS": TRACE_SLOTS}
    return common.module_with_defines(launch.FWD_SOURCE, defines, names)


def intervals(t: np.ndarray, passes: int, tiles: int) -> dict[str, list[float]]:
    """Each interval of the steady-state tiles (the first and last four left out), over the four warps."""
    steady = range(4, tiles - 4)
    out: dict[str, list[float]] = {k: [] for k in ("wait_kv", "s_issue", "s_arrive_max", "exp", "pv_issue")}
    out["period"] = []
    for w in range(4):
        for j in steady:
            top, synced = t[w, j * passes, 0], t[w, j * passes, 1]
            out["wait_kv"].append(synced - top)
            out["period"].append(t[w, (j + 1) * passes, 0] - top)
            for ps in range(passes):
                row = t[w, j * passes + ps]
                start = synced if ps == 0 else t[w, j * passes + ps - 1, 5]
                out["s_issue"].append(row[2] - start)
                out["s_arrive_max"].append(row[3] - row[2])
                out["exp"].append(row[4] - row[3])
                out["pv_issue"].append(row[5] - row[4])
    return out


def mma_sync_occupancy() -> list[dict[str, object]]:
    """mma.sync FLOP per SM per clock (slowest CTA's cycles) by warps per scheduler and accumulators per warp."""
    sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
    chains_steps = ((4, 8), (8, 4))  # 16 accumulators spill under the kernel's 64-register launch bound
    names = [f"mma_sync_rate<{c}, {s}>" for c, s in chains_steps]
    module = cp.RawModule(
        code=common.load_source(calibrate.COMPUTE_SOURCE), options=common.NVRTC_OPTIONS, name_expressions=names
    )
    seed = cp.asarray(np.random.default_rng(6).integers(0, 2**16, 192, dtype=np.uint32) * 0x10001)
    sink = cp.zeros(1, dtype=cp.uint32)
    rows = []
    for (chains, steps), name in zip(chains_steps, names, strict=True):
        kernel = module.get_function(name)
        for warps_per_scheduler, ctas_per_sm, threads in ((1, 1, 128), (2, 1, 256), (8, 4, 256)):
            iters = 4000
            cycles = cp.zeros(sms * ctas_per_sm, dtype=cp.uint64)
            for _ in range(3):
                kernel(
                    (sms * ctas_per_sm,), (threads,), (seed, np.int32(iters), np.uint32(calibrate.KEY), sink, cycles)
                )
            cp.cuda.runtime.deviceSynchronize()
            flop_per_sm = ctas_per_sm * threads // 32 * chains * steps * iters * calibrate.MMA_FLOP
            rows.append({"warps_per_scheduler": warps_per_scheduler, "chains": chains,
                         "flop_per_sm_per_clk": flop_per_sm / float(cycles.max())})  # fmt: skip
            print(rows[-1], flush=True)
    return rows


def main() -> None:
    out_dir = Path(sys.argv[1])
    flush, trace = common.L2Flusher(), common.ClockTrace()
    rows, summary = [], []
    for d in common.SUPPORTED_HEADDIMS:
        config = launch.fwd_config(d)
        name = launch.fwd_name(d, config, False, True)
        passes = 1  # a warp's m16 groups share each K/V fragment at every d (fwd.cu, since the sixteenth session)
        tiles = SEQLEN // config.block_n
        module = traced_module([name])
        stamps = cp.ndarray((4, TRACE_SLOTS, len(PHASES)), cp.int64, module.get_global("fa2_phase_trace"))
        heads = 2048 // d
        grid, args = launch.random_forward_launch(BATCH, heads, SEQLEN, d, config)
        flops = common.attention_flops(BATCH, heads, SEQLEN, d, False, "fwd")
        kernels = {
            "plain": common.get_kernel(launch.FWD_SOURCE, name, ONE_CTA_SMEM_BYTES),
            "traced": module.get_function(name),
        }
        kernels["traced"].max_dynamic_shared_size_bytes = ONE_CTA_SMEM_BYTES
        for ctas_per_sm, smem in ((2, launch.fwd_smem_bytes(d, config)), (1, ONE_CTA_SMEM_BYTES)):
            timings = {}
            for build, kernel in kernels.items():
                run = functools.partial(kernel, grid, (config.warps * 32,), args, shared_mem=smem)
                stamps.fill(0)
                timings[build] = common.time_gpu(run, flush=flush, clock=trace)
            t = stamps.get().astype(np.float64)
            origin = t[t > 0].min()
            for w in range(4):
                for slot in range(tiles * passes):
                    stamp = {p: t[w, slot, i] - origin for i, p in enumerate(PHASES)}
                    where = {"headdim": d, "ctas_per_sm": ctas_per_sm, "warp": w, "tile": slot // passes}
                    rows.append({**where, "pass": slot % passes, **stamp})
            med = {f"{k}_cycles": statistics.median(x) for k, x in intervals(t, passes, tiles).items()}
            summary.append({"headdim": d, "ctas_per_sm": ctas_per_sm, "passes": passes,
                            **{f"{b}_ms": timings[b].median_ms for b in timings},
                            **{f"{b}_tflops": flops / timings[b].median_ms / 1e9 for b in timings},
                            **{f"{b}_clock_mhz": timings[b].probe_clock_mhz for b in timings}, **med})  # fmt: skip
            print(summary[-1], flush=True)
    common.write_rows(out_dir / "v2_phases_h200.csv", rows)
    common.write_rows(out_dir / "v2_phases_summary_h200.csv", summary)
    common.write_rows(out_dir / "mma_sync_occupancy_h200.csv", mma_sync_occupancy())
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()
