"""Device probe: what FA3's dQ accumulation by TMA bulk reduce-add costs the L2, alone (`bulk_reduce.cu`).

The v3 backward is predicted 19-42% faster than cuDNN's on the H200 (`docs/results/production_ratio_h200.txt`), and
more at short sequences. Its dQ goes to the fp32 accumulator by one `cp.reduce.async.bulk ... .add.f32` per consumer
warpgroup and Q block (20 KiB at d = 128, block 80 x 128): per step of an SM 40 KiB of adds beside 40 KiB of Q and
dO loads. The model charges an add twice its bytes at the L2's read bandwidth (`simgpu.units.fluid_l2`): 4.6 TB/s
of adds on the H200, where the model's backward at 680 TFLOP/s asks 2.1 TB/s. RED from registers measured
0.7-2.8 TB/s with every SM adding (`dq_atomics_h200.csv`, `dq_atomics_rows_h200.csv`), but those instructions are
limited on the SM's side too. This probe measures the bulk path:
- the chip's bulk reduce-add rate (bytes added per SM clock, all SMs) against a bulk store of the same bytes, and a
  bulk load's;
- a load and a reduce-add per pass together, as a backward step issues them;
- whether CTAs adding into one region (`group` 8 or 32: the key blocks of one head) are slower than private ones;
- with `gap_cycles` between adds, whether a spread-out stream (a step of several thousand cycles) sees the same rate.

One wave of 132 x `ctas_per_sm` CTAs of 128 threads; 20 KiB per add (FA3's per warpgroup at d = 128); 64 passes over
8 tiles of the CTA's region (L2-resident after the first pass). Timed with CUDA events (median of runs after
warm-up; the SM clock counted beside them); per-CTA cycles from clock64. Writes bulk_reduce_h200.csv and the GPU's
facts. Run on the GPU machine from the repository root: `PYTHONPATH=. python3 validation/probes/bulk_reduce.py OUT`.
Not run yet: written in the sixty-eighth session, when no device was lent.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common

SOURCE = Path(__file__).resolve().parent / "bulk_reduce.cu"
BYTES = 20480
THREADS = 128
TILES, PASSES = 8, 64
MODES = {0: "reduce_add", 1: "store", 2: "load", 3: "load_and_reduce_add"}
GROUPS = (1, 8, 32)
GAPS = (0, 3000)
CTAS_PER_SM = (1, 2)


def checked_sum(module: object, sms: int) -> tuple[float, float]:
    """One run of the reduce-add from a zeroed accumulator: the accumulator's sum, and what the CTAs added."""
    kernel = module.get_function(f"bulk_reduce<{BYTES}, 0>")  # type: ignore[attr-defined]
    acc = cp.zeros(sms * TILES * BYTES // 4, dtype=cp.float32)
    src = cp.zeros(TILES * BYTES // 4, dtype=cp.float32)
    cycles = cp.zeros(sms, dtype=cp.int64)
    kernel((sms,), (THREADS,), (acc, src, np.int32(TILES), np.int32(PASSES), np.int32(1), np.int32(0), cycles),
           shared_mem=2 * BYTES)  # fmt: skip
    cp.cuda.Stream.null.synchronize()
    index = np.arange(BYTES // 4)
    staged = sum(float((1e-3 * ((block + index) % 7 + 1)).sum()) for block in range(sms))
    return float(acc.sum(dtype=cp.float64)), staged * PASSES


def main() -> None:
    out_dir = Path(sys.argv[1])
    sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
    names = [f"bulk_reduce<{BYTES}, {mode}>" for mode in MODES]
    module = cp.RawModule(code=common.load_source(SOURCE), options=common.NVRTC_OPTIONS, name_expressions=names)
    total, expected = checked_sum(module, sms)
    print(f"check: accumulator sum {total:.6g}, added {expected:.6g} (relative {total / expected - 1:+.2e})")
    if abs(total / expected - 1) > 1e-4:
        raise SystemExit("the bulk reduce-add did not add what the CTAs staged")
    clock = common.ClockTrace()
    rows: list[dict[str, object]] = []
    for mode, ctas_per_sm, group, gap in itertools.product(MODES, CTAS_PER_SM, GROUPS, GAPS):
        kernel = module.get_function(f"bulk_reduce<{BYTES}, {mode}>")
        grid = sms * ctas_per_sm
        acc = cp.zeros(-(-grid // group) * TILES * BYTES // 4, dtype=cp.float32)
        src = cp.ones(TILES * BYTES // 4, dtype=cp.float32)
        cycles = cp.zeros(grid, dtype=cp.int64)
        args = (acc, src, np.int32(TILES), np.int32(PASSES), np.int32(group), np.int32(gap), cycles)

        def run(kernel=kernel, grid=grid, args=args) -> None:
            kernel((grid,), (THREADS,), args, shared_mem=2 * BYTES)

        timing = common.time_gpu(run, warmup=2, min_runs=10, max_runs=50, target_s=0.2, clock=clock)
        cta_cycles = float(np.median(cycles.get()))
        moved = grid * PASSES * BYTES * (2 if mode == 3 else 1)
        rows.append({
            "mode": MODES[mode], "ctas_per_sm": ctas_per_sm, "group": group, "gap_cycles": gap, "ctas": grid,
            "bytes_per_op": BYTES, "passes": PASSES, "time_ms": timing.median_ms, "clock_mhz": timing.probe_clock_mhz,
            "cta_cycles_median": cta_cycles, "cycles_per_pass": cta_cycles / PASSES,
            "chip_bytes_per_clk": moved / cta_cycles,
            "chip_tb_per_s": moved / (timing.median_ms * 1e-3) / 1e12,
        })  # fmt: skip
        print(rows[-1], flush=True)
    common.write_rows(out_dir / "bulk_reduce_h200.csv", rows)
    common.write_gpu_facts(out_dir / "bulk_reduce_gpu_h200.csv")


if __name__ == "__main__":
    main()
