"""Device probe: wgmma throughput by instruction shape, operand source and wait pattern (sm_90a).

Runs the kernels of `wgmma_shape.cu` as one wave of one CTA per SM (dynamic shared memory sized so that only one
fits) with 1 or 2 warpgroups, and reports FLOP per SM per clock from the slowest CTA's cycle count and the cycles
per commit group. Writes wgmma_shape_h200.csv.
Run on the GPU machine from the repository root: `PYTHONPATH=. python3 validation/probes/wgmma_shape.py OUT`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common

SOURCE = Path(__file__).resolve().parent / "wgmma_shape.cu"
SMEM_BYTES = 120 * 1024  # one CTA per SM
ITERS = 4000
SHAPES = {  # SHAPE -> (name, FLOP per instruction, group sizes)
    0: ("ss_m64n64k16", 2 * 64 * 64 * 16, (4, 8)),
    1: ("ss_m64n128k16", 2 * 64 * 128 * 16, (4, 8)),
    2: ("ss_m64n256k16", 2 * 64 * 256 * 16, (4,)),
    3: ("rs_m64n64k16", 2 * 64 * 64 * 16, (4, 8)),
    4: ("rs_m64n128k16", 2 * 64 * 128 * 16, (4, 8)),
}
PAIRS = {5: ("fa3_pair_d64", 4 * 2 * 64 * 128 * 16 + 8 * 2 * 64 * 64 * 16),
         6: ("fa3_pair_d128", 8 * 2 * 64 * 128 * 16 + 8 * 2 * 64 * 128 * 16),
         7: ("two_ss_n128_chains", 8 * 2 * 64 * 128 * 16),
         8: ("two_rs_n64_chains", 16 * 2 * 64 * 64 * 16),
         9: ("fa3_pair_d64_s_accumulates", 4 * 2 * 64 * 128 * 16 + 8 * 2 * 64 * 64 * 16)}  # fmt: skip


def kernels() -> dict[str, tuple[str, int, int, int, float]]:
    """Name expression -> (pattern, group, wait, warpgroups, FLOP per warpgroup per iteration)."""
    out = {}
    for wait in (0, 1):
        for wgs in (1, 2):
            for shape, (name, flop, groups) in SHAPES.items():
                for group in groups:
                    out[f"wgmma_shape<{shape}, {group}, {wait}, {wgs}>"] = (name, group, wait, wgs, float(flop * group))
            for shape, (name, flop) in PAIRS.items():
                out[f"wgmma_shape<{shape}, 1, {wait}, {wgs}>"] = (name, 1, wait, wgs, float(flop))
    return out


def main() -> None:
    out_dir = Path(sys.argv[1])
    sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
    table = kernels()
    module = cp.RawModule(
        code=common.load_source(SOURCE), options=(*common.NVRTC_OPTIONS, "-arch=sm_90a"), name_expressions=list(table)
    )
    sink = cp.zeros(1, dtype=cp.uint32)
    rows = []
    for expr, (pattern, group, wait, wgs, flop) in table.items():
        kernel = module.get_function(expr)
        kernel.max_dynamic_shared_size_bytes = SMEM_BYTES
        cycles = cp.zeros(sms, dtype=cp.uint64)
        for _ in range(3):
            kernel((sms,), (128 * wgs,), (np.int32(ITERS), sink, cycles), shared_mem=SMEM_BYTES)
        cp.cuda.runtime.deviceSynchronize()
        worst = float(cycles.max())
        rows.append({"pattern": pattern, "group": group, "wait_group": wait, "warpgroups": wgs,
                     "flop_per_sm_per_clk": wgs * flop * ITERS / worst,
                     "cycles_per_group": worst / ITERS})  # fmt: skip
        print(rows[-1], flush=True)
    common.write_rows(out_dir / "wgmma_shape_h200.csv", rows)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()
