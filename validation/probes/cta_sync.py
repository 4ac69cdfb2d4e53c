"""Device probe: what a `__syncthreads` costs a CTA whose warps reach it together (`cta_sync.cu`).

For 4, 8 and 12 warps a CTA (FA1's forward, its backward, the 384 threads of `cta_prologue.py`, whose thread 0 saw
106 cycles from its late arrival to its release), one CTA per SM (dynamic shared memory sized so) and then two, every
CTA loops 20,000 steps: a value exchanged through shared memory with `__syncwarp` (mode 0) or a `__syncthreads`
(mode 1) between the store and the load, or a dependent FFMA alone (mode 2) and with a `__syncthreads` (mode 3). Thread
0's SM cycles over the loop, per step, median over the CTAs; the barrier's cost is mode 1 less mode 0 and mode 3
less mode 2. Writes cta_sync.csv (one row per warps, CTAs per SM and mode) and gpu.csv.
Run on the GPU machine from the repository root: `PYTHONPATH=. python3 validation/probes/cta_sync.py OUT`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common

SOURCE = Path(__file__).resolve().parent / "cta_sync.cu"
ITERS = 20_000
WARPS = (4, 8, 12)
MODES = ("smem exchange, __syncwarp", "smem exchange, __syncthreads", "FFMA", "FFMA, __syncthreads")


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    facts = common.write_gpu_facts(out / "gpu.csv")
    sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
    kernel = cp.RawModule(code=common.load_source(SOURCE), options=("-arch=sm_90a",)).get_function("exchange")
    sink = cp.zeros(1, dtype=cp.uint32)
    rows = []
    for ctas_per_sm, smem in ((1, 120 * 1024), (2, 64 * 1024)):
        kernel.max_dynamic_shared_size_bytes = smem
        for warps in WARPS:
            cycles = cp.zeros(sms * ctas_per_sm, dtype=cp.uint64)
            per_step = {}
            for mode, name in enumerate(MODES):
                arguments = (np.int32(ITERS), np.int32(mode), np.uint32(0xDEADBEEF), sink, cycles)
                for _ in range(3):  # the last of three runs is kept: the first loads the module and warms the clock
                    kernel((sms * ctas_per_sm,), (32 * warps,), arguments, shared_mem=smem)
                cp.cuda.runtime.deviceSynchronize()
                steps = cycles.get().astype(np.float64) / ITERS
                per_step[mode] = float(np.median(steps))
                rows.append({"warps": warps, "ctas_per_sm": ctas_per_sm, "mode": mode, "what": name,
                             "median_cycles_per_step": per_step[mode], "p10": float(np.percentile(steps, 10)),
                             "p90": float(np.percentile(steps, 90))})  # fmt: skip
            print(f"{warps:2} warps, {ctas_per_sm} CTA/SM: exchange {per_step[0]:.1f} -> {per_step[1]:.1f} "
                  f"(barrier {per_step[1] - per_step[0]:+.1f}), FFMA {per_step[2]:.1f} -> {per_step[3]:.1f} "
                  f"(barrier {per_step[3] - per_step[2]:+.1f}) cycles a step", flush=True)  # fmt: skip
    common.write_rows(out / "cta_sync.csv", rows)
    print("gpu:", facts)


if __name__ == "__main__":
    main()
