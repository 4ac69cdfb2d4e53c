"""Device probe: do copies landing in shared memory slow the ldmatrix reads beside them, and the products of our FA2
forward? (`smem_port.cu`)

One CTA of 8 warps per SM: 4 warps read shared memory (READER: 0 ldmatrix.x4 only, a fixed amount; 1 fwd.cu's
S = Q K^T at d = 128; 2 its O += P V; 3 nothing for a fixed time) while the other 4 copy an L2-resident buffer into
another part of shared memory until the readers finish (MODE: 0 nothing; 1 cp.async, 8 per thread per round, one
round in flight; 2 the bulk copy engine; 3 nothing, all readers at the same addresses; 4 cp.async as fwd.cu issues
a K/V tile, 16 per thread per round, two rounds in flight). If copies took the port the reads use (128 B/clk/SM),
the reads would slow by about the bytes written; if the copies' instructions held up the readers' ldmatrix in the
load path, the products would slow more than their reads alone. Writes, by `--products`: smem_port_h200.csv (READER
0, MODES 0-3: per mode, the median over SMs of the readers' and the writers' bytes per SM cycle) or, with it,
smem_port_products_h200.csv (every READER x MODE below, and FLOP per SM cycle for the products). Run on the GPU
machine from the repository root: `PYTHONPATH=. python3 validation/probes/smem_port.py OUT [--products]`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common

SOURCE = Path(__file__).resolve().parent / "smem_port.cu"
SRC_BYTES = 16 << 20  # L2-resident source of the copies
SMEM_BYTES = (52 + 64) * 1024  # the products' Q and K (or V) tiles, padded, and the writers' 64 KiB
MODES = {0: "readers alone", 1: "beside cp.async", 2: "beside cp.async.bulk", 3: "readers alone, same addresses",
         4: "beside cp.async as fwd.cu"}  # fmt: skip
READERS = {0: "ldmatrix.x4", 1: "S = Q K^T, d = 128", 2: "O += P V, d = 128", 3: "none"}
# Per reader: its `iters` (ldmatrix: 8 x 512 B per warp each; products: one 128 x 64 x 128 product per CTA each;
# none: SM cycles) and what one iteration moves or computes per SM.
ITERS = {0: 20_000, 1: 2_000, 2: 2_000, 3: 3_000_000}
PRODUCT_FLOP = 2.0 * 128 * 64 * 128
PORT_RUNS = [(0, mode) for mode in range(4)]
PRODUCT_RUNS = [(0, 4), (1, 0), (1, 1), (1, 4), (2, 0), (2, 1), (2, 4), (3, 1), (3, 4)]


def main() -> None:
    out_dir = Path(sys.argv[1])
    runs = PRODUCT_RUNS if "--products" in sys.argv[2:] else PORT_RUNS
    sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
    names = [f"smem_port<{reader}, {mode}>" for reader, mode in runs]
    module = cp.RawModule(code=common.load_source(SOURCE), options=common.NVRTC_OPTIONS, name_expressions=names)
    src = cp.random.default_rng(3).integers(0, 255, SRC_BYTES, dtype=cp.uint8)
    sink = cp.zeros(1, dtype=cp.uint32)
    rows = []
    for (reader, mode), name in zip(runs, names, strict=True):
        kernel = module.get_function(name)
        kernel.max_dynamic_shared_size_bytes = SMEM_BYTES
        out = cp.zeros(3 * sms, dtype=cp.uint64)
        iters = ITERS[reader]
        for _ in range(3):
            out.fill(0)
            kernel((sms,), (256,), (src, np.uint32(SRC_BYTES - 1), np.int32(iters), sink, out), shared_mem=SMEM_BYTES)
        cp.cuda.runtime.deviceSynchronize()
        reader_cycles, written, writer_cycles = out.get().reshape(sms, 3).astype(np.float64).T
        read_rate = 4 * iters * 8 * 512 / reader_cycles if reader == 0 else np.zeros(sms)
        flop_rate = iters * PRODUCT_FLOP / reader_cycles if reader in (1, 2) else np.zeros(sms)
        write_rate = np.divide(written, writer_cycles, out=np.zeros(sms), where=writer_cycles > 0)
        products = runs is PRODUCT_RUNS  # the file the arch files cite (the port runs) keeps its columns
        rows.append({**({"reader": READERS[reader]} if products else {}), "mode": mode, "writers": MODES[mode],
                     "read_bytes_per_clk": float(np.median(read_rate)),
                     **({"flop_per_clk": float(np.median(flop_rate))} if products else {}),
                     "write_bytes_per_clk": float(np.median(write_rate)),
                     "reader_cycles": float(np.median(reader_cycles))})  # fmt: skip
        print(rows[-1], flush=True)
    name = "smem_port_products_h200.csv" if runs is PRODUCT_RUNS else "smem_port_h200.csv"
    common.write_rows(out_dir / name, rows)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()
