"""Device probe: what the dQ atomics of our FA2 backward kernel cost, alone (`dq_atomics.cu`).

The v2 backward is predicted 22-32% too fast, and Nsight Compute put 10.6 / 11.5% of its warps' time (d = 64 /
128) in the region that adds dQ_i to the fp32 accumulator (`v2_instruction_mix_h200.csv`). The model issues the
atomics as one store of the tile's bytes done in L2, with no hold of the warps. This probe measures the three
things a model of them needs, with bwd.cu's exact addresses and instruction order:
- the cycles a warp is held issuing its REDs of one tile (per warp, median), with and without other CTAs adding
  to the same addresses;
- the chip's atomic throughput (fp32 adds per SM clock) when every SM adds tiles back to back;
- whether same-address adds (`group` CTAs stepping through one region, as one head's K/V blocks do) are slower
  than adds to distinct regions, and whether the cost is per instruction or per byte (`vec2`: half the
  instructions, same bytes);
- for comparison, plain 4-byte stores in the forward epilogues' pattern (`store`: 16 contiguous bytes per row);
- whether the limit is each SM's or the chip's: the same with one CTA on a quarter of the SMs.

Shapes: one wave of 132 x `ctas_per_sm` CTAs of 8 warps (bwd.cu's CTA), 32 tiles of 64 rows each (block_m = 64),
d = 64 and 128, `group` 1 (private regions) or 16 (FA2 at N = 2048: 16 K/V blocks per head), `gap_cycles` 0 (atomics
back to back) or 3000 (spread out as in the kernel, whose tile takes several thousand cycles). Timed with CUDA
events (median of runs after warm-up); cycles from clock64. Writes dq_atomics_h200.csv. Run on the GPU machine from
the repository root: `PYTHONPATH=. python3 validation/probes/dq_atomics.py OUT`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common

SOURCE = Path(__file__).resolve().parent / "dq_atomics.cu"
BLOCK_M, WARPS, TILES = 64, 8, 32
GROUPS = (1, 16)
GAPS = (0, 3000)
MODES = {0: "red", 1: "red_vec2", 2: "store", 3: "red_rows", 4: "red_rows4"}
CTAS_PER_SM = (1.0, 2.0, 0.25)  # 0.25: one CTA on a quarter of the SMs


def instructions_per_tile(d: int, mode: int) -> int:
    """Warp-level RED or STG instructions per tile and CTA: 16 per task (2 rows x 4 column tiles x 2 scalar adds),
    tasks = 4 x d / 32; half as many with the vector atomics and with the stores (one per row and column tile); FA2's
    order (`red_rows`, and `red_rows4` with 4 rows per instruction) one per 32 elements, as many as `red`."""
    if mode >= 3:  # one per 32 elements
        return BLOCK_M * d // 32
    per_task = 16 if mode == 0 else 8
    return (BLOCK_M // 16) * (d // 32) * per_task


def main() -> None:
    out_dir = Path(sys.argv[1])
    sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
    names = {(d, mode): f"dq_atomics<{d}, {mode}>" for d in (64, 128) for mode in MODES}
    module = cp.RawModule(
        code=common.load_source(SOURCE), options=common.NVRTC_OPTIONS, name_expressions=list(names.values())
    )
    rows: list[dict[str, object]] = []
    for (d, mode), name in names.items():
        kernel = module.get_function(name)
        for ctas_per_sm in CTAS_PER_SM:
            grid = round(sms * ctas_per_sm)
            active_sms = min(grid, sms)
            for group in GROUPS:
                for gap in GAPS:
                    regions = -(-grid // group)
                    dq = cp.zeros(regions * TILES * BLOCK_M * d, dtype=cp.float32)
                    cta_cycles = cp.zeros(grid, dtype=cp.int64)
                    warp_cycles = cp.zeros(grid * WARPS, dtype=cp.int64)
                    args = (dq, np.int32(TILES), np.int32(group), np.int32(gap), cta_cycles, warp_cycles)

                    def run(kernel=kernel, grid=grid, args=args) -> None:
                        kernel((grid,), (WARPS * 32,), args)

                    timing = common.time_gpu(run, warmup=2, min_runs=10, max_runs=50, target_s=0.2)
                    cycles = float(np.median(cta_cycles.get()))
                    issue = float(np.median(warp_cycles.get())) / TILES
                    adds = grid * TILES * BLOCK_M * d
                    rows.append({
                        "headdim": d, "mode": MODES[mode], "ctas_per_sm": ctas_per_sm, "active_sms": active_sms,
                        "group": group, "gap_cycles": gap,
                        "ctas": grid, "tiles": TILES, "time_ms": timing.median_ms, "runs": timing.runs,
                        "cta_cycles_median": cycles, "cycles_per_tile": cycles / TILES,
                        "warp_issue_cycles_per_tile": issue,
                        "instructions_per_tile": instructions_per_tile(d, mode),
                        "elements_per_sm_per_clk": adds / active_sms / cycles,
                        "kernel_clock_mhz": cycles / (timing.median_ms * 1e3),
                    })  # fmt: skip
                    print(rows[-1], flush=True)
    common.write_rows(out_dir / "dq_atomics_h200.csv", rows)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()
