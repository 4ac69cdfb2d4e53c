"""Device probe: do copies landing in shared memory slow the ldmatrix reads beside them? (`smem_port.cu`)

One CTA of 8 warps per SM: 4 warps read shared memory with ldmatrix.x4 (a fixed amount) while the other 4 copy an
L2-resident buffer into another part of shared memory until the readers finish, with cp.async (mode 1) or the bulk
copy engine (mode 2); mode 0 leaves the readers alone, and mode 3 too with all 4 warps reading the same addresses.
If copies took the port the reads use (128 B/clk/SM), the reads would slow by about the bytes written. Writes
smem_port_h200.csv: per mode, the median over SMs of the readers' and the writers' bytes per SM cycle. Run on the
GPU machine from the repository root:
`PYTHONPATH=. python3 validation/probes/smem_port.py OUT`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common

SOURCE = Path(__file__).resolve().parent / "smem_port.cu"
SRC_BYTES = 16 << 20  # L2-resident source of the copies
ITERS = 20_000  # 8 ldmatrix.x4 per reader warp each: 16 KiB per iteration over 4 warps
SMEM_BYTES = (16 + 64) * 1024
MODES = {0: "readers alone", 1: "beside cp.async", 2: "beside cp.async.bulk", 3: "readers alone, same addresses"}


def main() -> None:
    out_dir = Path(sys.argv[1])
    sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
    names = [f"smem_port<{mode}>" for mode in MODES]
    module = cp.RawModule(code=common.load_source(SOURCE), options=common.NVRTC_OPTIONS, name_expressions=names)
    src = cp.random.default_rng(3).integers(0, 255, SRC_BYTES, dtype=cp.uint8)
    sink = cp.zeros(1, dtype=cp.uint32)
    rows = []
    for (mode, label), name in zip(MODES.items(), names, strict=True):
        kernel = module.get_function(name)
        kernel.max_dynamic_shared_size_bytes = SMEM_BYTES
        out = cp.zeros(3 * sms, dtype=cp.uint64)
        for _ in range(3):
            out.fill(0)
            kernel((sms,), (256,), (src, np.uint32(SRC_BYTES - 1), np.int32(ITERS), sink, out), shared_mem=SMEM_BYTES)
        cp.cuda.runtime.deviceSynchronize()
        reader_cycles, written, writer_cycles = out.get().reshape(sms, 3).astype(np.float64).T
        read_rate = 4 * ITERS * 8 * 512 / reader_cycles
        write_rate = np.divide(written, writer_cycles, out=np.zeros(sms), where=writer_cycles > 0)
        rows.append({"mode": mode, "writers": label, "read_bytes_per_clk": float(np.median(read_rate)),
                     "write_bytes_per_clk": float(np.median(write_rate)),
                     "reader_cycles": float(np.median(reader_cycles))})  # fmt: skip
        print(rows[-1], flush=True)
    common.write_rows(out_dir / "smem_port_h200.csv", rows)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()
