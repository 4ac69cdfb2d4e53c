"""Device probe: how fast our FA2 forward kernel's K/V load skeleton alone streams tiles into shared memory.

Runs `cp_async_stream.cu` (per key tile: wait for the tile, __syncthreads, cp.async the tile STAGES - 1 ahead, as
`cupy_kernels/v2/fwd.cu` does; nothing else) as one wave of 132 x `ctas_per_sm` CTAs of 4 warps, each streaming 64
tiles of 32 KiB (K and V: 128 keys at d = 64, 64 keys at d = 128). "l2": 32 CTAs read each head's K/V, as FA2's
Q blocks do (the heads in flight fit in L2: only first touches go to HBM); "hbm": every CTA its own head (the
tiles come from HBM). Dynamic shared memory sets the CTAs per SM. Reports SM cycles per tile per SM (slowest CTA)
and the bytes per clock per SM they imply. Writes cp_async_stream_h200.csv.
Then `cp_async_issue`: 1 or 2 CTAs per SM of 4 warps issue CHUNKS x 16 bytes of cp.async per thread (4 to 64 KiB
per CTA) from L2 and wait for them; per warp, the cycles the issuing took and the cycles until all had landed
(medians over warps, rounds after the first). Writes cp_async_issue_h200.csv.
Run on the GPU machine from the repository root: `PYTHONPATH=. python3 validation/probes/cp_async_stream.py OUT`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common

SOURCE = Path(__file__).resolve().parent / "cp_async_stream.cu"
TILES = 64
CTAS_PER_HEAD = 32  # FA2 at N = 4096 and block_m = 128
TILE_BYTES = 32768
SMEM_BY_CTAS = {1: 120 * 1024, 2: 100 * 1024, 3: 74 * 1024}  # dynamic smem that lets exactly that many fit


def configs() -> list[tuple[int, int, int]]:
    """(d, block_n, stages) of the builds."""
    return [(64, 128, 2), (128, 64, 2), (64, 128, 3)]


ISSUE_CHUNKS = (2, 4, 8, 16, 32)
ISSUE_ROUNDS = 50


def issue_rows(sms: int) -> list[dict[str, object]]:
    names = [f"cp_async_issue<{c}>" for c in ISSUE_CHUNKS]
    module = cp.RawModule(code=common.load_source(SOURCE), options=common.NVRTC_OPTIONS, name_expressions=names)
    src = common.random_tensor((64 * max(ISSUE_CHUNKS) * 128 * 8,), "bf16", 3)
    sink = cp.zeros(1, dtype=cp.uint32)
    rows = []
    for chunks, name in zip(ISSUE_CHUNKS, names, strict=True):
        kernel = module.get_function(name)
        kernel.max_dynamic_shared_size_bytes = SMEM_BY_CTAS[1]
        for ctas_per_sm in (1, 2):
            grid = sms * ctas_per_sm
            cycles = cp.zeros(2 * grid * 4, dtype=cp.uint64)
            smem = max(chunks * 128 * 16, 0) if ctas_per_sm == 2 else SMEM_BY_CTAS[1]
            kernel((grid,), (128,), (src, np.int32(ISSUE_ROUNDS), sink, cycles), shared_mem=smem)
            cp.cuda.runtime.deviceSynchronize()
            per_warp = cycles.get().reshape(-1, 2).astype(np.float64)
            rows.append({"bytes_per_cta": chunks * 128 * 16, "ctas_per_sm": ctas_per_sm,
                         "issue_cycles": float(np.median(per_warp[:, 0])),
                         "landed_cycles": float(np.median(per_warp[:, 1]))})  # fmt: skip
            print(rows[-1], flush=True)
    return rows


def main() -> None:
    out_dir = Path(sys.argv[1])
    sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
    names = {cfg: f"cp_async_stream<{cfg[0]}, {cfg[1]}, {cfg[2]}>" for cfg in configs()}
    module = cp.RawModule(
        code=common.load_source(SOURCE), options=common.NVRTC_OPTIONS, name_expressions=list(names.values())
    )
    sink = cp.zeros(1, dtype=cp.uint32)
    rows = []
    for (d, block_n, stages), name in names.items():
        kernel = module.get_function(name)
        kernel.max_dynamic_shared_size_bytes = max(SMEM_BY_CTAS.values())
        need = stages * 2 * block_n * (d + 8) * 2
        for ctas_per_sm, smem in SMEM_BY_CTAS.items():
            if smem < need:
                continue
            grid = sms * ctas_per_sm
            for source, heads in (("l2", max(1, grid // CTAS_PER_HEAD)), ("hbm", grid)):
                kv = common.random_tensor((heads * 2 * TILES * block_n * d,), "bf16", 7)
                cycles = cp.zeros(grid, dtype=cp.uint64)
                for _ in range(3):
                    kernel((grid,), (128,), (kv, np.int32(TILES), np.int32(heads), sink, cycles), shared_mem=smem)
                cp.cuda.runtime.deviceSynchronize()
                per_tile = float(cycles.max()) / (TILES * ctas_per_sm)
                rows.append({"headdim": d, "block_n": block_n, "stages": stages, "ctas_per_sm": ctas_per_sm,
                             "source": source, "cycles_per_tile_per_sm": per_tile,
                             "bytes_per_clk_per_sm": TILE_BYTES / per_tile})  # fmt: skip
                print(rows[-1], flush=True)
                del kv
    common.write_rows(out_dir / "cp_async_stream_h200.csv", rows)
    common.write_rows(out_dir / "cp_async_issue_h200.csv", issue_rows(sms))
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()
