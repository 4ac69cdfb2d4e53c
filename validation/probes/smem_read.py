"""Device probe: shared-memory read bandwidth per SM by instruction (ldmatrix.x4, its .trans, LDS.128), warps per
SM (4 to 32) and independent loads per warp (1 to 8), from `smem_read.cu`. One CTA per SM; bytes per SM cycle from
the slowest CTA's cycle count. Settles whether the 128 B/clk/SM of the arch files bounds ldmatrix (a probe of
copies beside ldmatrix, `smem_port.py`, saw readers alone reach ~230 B/clk). Writes smem_read_h200.csv.
Run on the GPU machine from the repository root: `PYTHONPATH=. python3 validation/probes/smem_read.py OUT`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common

SOURCE = Path(__file__).resolve().parent / "smem_read.cu"
KINDS = {0: "ldmatrix.x4", 1: "ldmatrix.x4.trans", 2: "ld.shared.v4"}
ILPS = (1, 2, 4, 8)
WARPS = (4, 8, 16, 32)
TILE_BYTES = 32 * 1024
BYTES_PER_WARP_LOAD = 512


def main() -> None:
    out_dir = Path(sys.argv[1])
    sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
    names = {(kind, ilp): f"smem_read<{kind}, {ilp}>" for kind in KINDS for ilp in ILPS}
    module = cp.RawModule(
        code=common.load_source(SOURCE), options=common.NVRTC_OPTIONS, name_expressions=list(names.values())
    )
    sink = cp.zeros(1, dtype=cp.uint32)
    rows = []
    for (kind, ilp), name in names.items():
        kernel = module.get_function(name)
        for warps in WARPS:
            iters = max(1, 2_000_000 // (warps * ilp))  # ~1 GB per SM: about 4 M cycles at 256 B/clk
            out = cp.zeros(sms, dtype=cp.uint64)
            for _ in range(2):
                kernel((sms,), (32 * warps,), (np.int32(iters), sink, out), shared_mem=TILE_BYTES)
            cp.cuda.runtime.deviceSynchronize()
            cycles = float(out.max())
            rate = warps * iters * ilp * BYTES_PER_WARP_LOAD / cycles
            rows.append({"instruction": KINDS[kind], "warps_per_sm": warps, "loads_in_flight_per_warp": ilp,
                         "bytes_per_sm_per_clk": rate})  # fmt: skip
            print(rows[-1], flush=True)
    common.write_rows(out_dir / "smem_read_h200.csv", rows)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()
