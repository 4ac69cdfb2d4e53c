"""Device probe: what each part of our FA3 forward kernel adds to its time, by taking parts out.

`cupy_kernels/v3/fwd.cu` compiled with FA3_ABLATE = a bit mask of ABLATE_LOADS (1: K/V tiles after the first two
are not copied), ABLATE_EXP (2: no MUFU.EX2), ABLATE_PV (4: no O += P V wgmma), ABLATE_S (8: no S = Q K^T wgmma),
ABLATE_STORES (16: no O or LSE stores), ABLATE_MAX (32: the row max from one score per thread, no FMNMX pass or
quad shuffles), ABLATE_RESCALE (64: no O *= alpha). Each build is timed (CUDA events, L2 flushed, the clock counted
beside it) on B=4, H=2048/d, N=4096, bf16, not causal, d = 64 and 128, in every (pingpong, intra_wg_overlap)
variant. The results of an ablated build are wrong by design; only its time is used. Reports SM cycles per key
tile per SM (time x measured clock x SMs / key tiles), as `validation/probes/v2_ablate.py` does for FA2. The
masks' builds are compiled in parallel processes first (CuPy's kernel cache then serves this process). Writes
v3_ablate_h200.csv. Run on the GPU machine from the repository root:
`PYTHONPATH=. python3 validation/probes/v3_ablate.py OUT`.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import cupy as cp

from cupy_kernels import common
from cupy_kernels.v3 import launch

MASKS = (0, 1, 2, 4, 8, 16, 32, 64, 12, 6, 34, 96)
VARIANTS = [(pingpong, overlap) for pingpong in (True, False) for overlap in (True, False)]
BATCH, SEQLEN = 4, 4096


def main() -> None:
    out_dir = Path(sys.argv[1])
    sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
    flush, trace = common.L2Flusher(), common.ClockTrace()
    modules = launch.probe_modules("FA3_ABLATE", MASKS)
    rows = []
    for d in common.SUPPORTED_HEADDIMS:
        config = launch.fwd_config(d)
        shape = (BATCH, 2048 // d, SEQLEN, d)
        q, k, v = (common.random_tensor(shape, "bf16", seed) for seed in range(3))
        out = (cp.empty_like(q), cp.empty(shape[:3], dtype=cp.float32))
        key_tiles = BATCH * (2048 // d) * (SEQLEN // config.block_m) * (SEQLEN // config.block_n)
        for pp, ov in VARIANTS:
            name = launch.kernel_name(d, config, False, pp, ov)
            for mask in MASKS:
                launch._functions[name] = modules[mask].get_function(name)
                launch._functions[name].max_dynamic_shared_size_bytes = launch.smem_bytes(d, config)

                run = functools.partial(launch.forward, q, k, v, False, pingpong=pp, intra_wg_overlap=ov, out=out)
                timing = common.time_gpu(run, flush=flush, clock=trace)
                cycles = timing.median_ms * 1e-3 * timing.probe_clock_mhz * 1e6 * sms / key_tiles
                rows.append({"headdim": d, "pingpong": pp, "intra_wg_overlap": ov, "ablate": mask,
                             "ms": timing.median_ms, "clock_mhz": timing.probe_clock_mhz,
                             "cycles_per_tile_per_sm": cycles})  # fmt: skip
                print(rows[-1], flush=True)
            launch._functions.pop(name)
    common.write_rows(out_dir / "v3_ablate_h200.csv", rows)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()
