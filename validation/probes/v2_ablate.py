"""Device probe: what each part of our FA2 forward kernel's loop adds to its time, by taking parts out.

`cupy_kernels/v2/fwd.cu` compiled with FA2_ABLATE = a bit mask of ABLATE_LOADS (1: no cp.async of the next K/V
tile), ABLATE_EXP (2: no MUFU.EX2), ABLATE_PV (4: no O += P V), ABLATE_S (8: no S = Q K^T). Each build is timed
(CUDA events, L2 flushed, the clock counted beside it) on B=4, H=2048/d, N=4096, bf16, not causal, d = 64 and 128,
at the kernel's own occupancy (2 CTAs per SM) and with shared memory padded to one CTA per SM. The results of an
ablated build are wrong by design; only its time is used. Reports SM cycles per key tile per SM (time x measured
clock x SMs / key tiles). Writes v2_ablate_h200.csv.
Run on the GPU machine from the repository root: `PYTHONPATH=. python3 validation/probes/v2_ablate.py OUT`.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import cupy as cp

from cupy_kernels import common
from cupy_kernels.v2 import launch

MASKS = (0, 1, 2, 4, 8, 6, 10, 12, 14, 3, 5, 9, 7, 11, 13, 15)
ONE_CTA_SMEM_BYTES = 120 * 1024
BATCH, SEQLEN = 4, 4096


def main() -> None:
    out_dir = Path(sys.argv[1])
    sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
    flush, trace = common.L2Flusher(), common.ClockTrace()
    rows = []
    for d in common.SUPPORTED_HEADDIMS:
        config = launch.fwd_config(d)
        name = launch.fwd_name(d, config, False, True)
        heads = 2048 // d
        grid, args = launch.random_forward_launch(BATCH, heads, SEQLEN, d, config)
        key_tiles = grid[0] * grid[1] * (SEQLEN // config.block_n)
        for mask in MASKS:
            kernel = common.module_with_defines(launch.FWD_SOURCE, {"FA2_ABLATE": mask}, [name]).get_function(name)
            kernel.max_dynamic_shared_size_bytes = ONE_CTA_SMEM_BYTES
            for ctas_per_sm, smem in ((2, launch.fwd_smem_bytes(d, config)), (1, ONE_CTA_SMEM_BYTES)):
                run = functools.partial(kernel, grid, (config.warps * 32,), args, shared_mem=smem)
                timing = common.time_gpu(run, flush=flush, clock=trace)
                cycles = timing.median_ms * 1e-3 * timing.probe_clock_mhz * 1e6 * sms / key_tiles
                rows.append({"headdim": d, "ablate": mask, "ctas_per_sm": ctas_per_sm, "ms": timing.median_ms,
                             "clock_mhz": timing.probe_clock_mhz, "cycles_per_tile_per_sm": cycles})  # fmt: skip
                print(rows[-1], flush=True)
    common.write_rows(out_dir / "v2_ablate_h200.csv", rows)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()
