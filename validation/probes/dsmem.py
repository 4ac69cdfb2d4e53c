"""Device probe: distributed shared memory between the two CTAs of a cluster on the H200 (`dsmem.cu`).

archs/b200.yaml's `dsmem` section (181 cycles, Hopper's published load latency; 32 bytes per clock, a second-hand
sm_100 figure) is what our model of FA4's 2-CTA backward sends half of dS and the peer's mbarrier arrivals over.
This measures, on every SM (clusters of 2 CTAs, one CTA per SM: each asks for 120 KiB of shared memory), medians
over the clusters:
- the latency of a dependent load through a cluster address, from the CTA's own smem and from the peer's (the
  difference of two chase lengths, so the loop's start and end cancel);
- thread loads (ld.shared::cluster.v4, 512 threads, 4 independent per thread) of the CTA's own smem, of the peer's,
  both CTAs reading each other's at once, and thread stores to the peer's: bytes per clock per SM;
- bulk copies (cp.async.bulk smem -> peer smem, 16 KiB each, completing on the peer's mbarrier): bytes per clock
  from the difference of 8 and 48 copies, and what is left of the 8-copy time beyond the bytes at that rate;
- an mbarrier arrival sent to the peer, from round trips between the two CTAs.
Writes dsmem_h200.csv. Run on the GPU machine from the repository root: `PYTHONPATH=. python3 validation/probes/dsmem.py
OUT`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common
from cupy_kernels.v3 import launch

SOURCE = Path(__file__).resolve().parent / "dsmem.cu"
SMEM_BYTES = 120 * 1024  # two CTAs cannot share an SM: each cluster spans two SMs
STREAM_THREADS, STREAM_ITERS = 512, 400
CHUNK = 16 * 1024
NAMES = ["dsmem_latency<0>", "dsmem_latency<1>", *(f"dsmem_stream<{m}>" for m in range(4)), "dsmem_bulk",
         "dsmem_pingpong"]  # fmt: skip
STREAMS = {0: "own smem, loads", 1: "peer's smem, loads", 2: "each other's smem, loads", 3: "peer's smem, stores"}


def main() -> None:
    out_dir = Path(sys.argv[1])
    sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
    clusters = sms // 2
    module = cp.RawModule(code=common.load_source(SOURCE), options=launch.NVRTC_OPTIONS, name_expressions=NAMES)
    sink = cp.zeros(1, dtype=cp.uint32)
    out = cp.zeros(sms, dtype=cp.uint64)

    def run(name: str, threads: int, *args: object) -> np.ndarray:
        kernel = module.get_function(name)
        kernel.max_dynamic_shared_size_bytes = SMEM_BYTES
        for _ in range(2):  # the second run is kept
            out.fill(0)
            kernel((2 * clusters,), (threads,), (*args, out), shared_mem=SMEM_BYTES)
            cp.cuda.Device().synchronize()
        return out.get().astype(np.float64)

    rows = []
    for remote, where in ((0, "own smem"), (1, "peer's smem")):
        short, long_ = (run(f"dsmem_latency<{remote}>", 128, np.int32(s), sink)[:clusters] for s in (256, 2304))
        rows.append({"quantity": f"load latency, {where}", "value": float(np.median((long_ - short) / 2048)),
                     "unit": "cycles"})  # fmt: skip
    for mode, label in STREAMS.items():
        cycles = run(f"dsmem_stream<{mode}>", STREAM_THREADS, np.int32(STREAM_ITERS), sink)[: 2 * clusters]
        active = cycles[cycles > 0]
        nbytes = STREAM_THREADS * STREAM_ITERS * 4 * 16
        rows.append({"quantity": f"thread access rate, {label}", "value": float(np.median(nbytes / active)),
                     "unit": "bytes per clock per SM"})  # fmt: skip
    few, many = (run("dsmem_bulk", 128, np.int32(c))[:clusters] for c in (8, 48))
    rate = float(np.median(40 * CHUNK / (many - few)))
    rows.append({"quantity": "bulk copy rate to the peer's smem", "value": rate, "unit": "bytes per clock per SM"})
    rows.append({"quantity": "bulk copies, 8 x 16 KiB: time beyond the bytes at that rate",
                 "value": float(np.median(few - 8 * CHUNK / rate)), "unit": "cycles"})  # fmt: skip
    short, long_ = (run("dsmem_pingpong", 32, np.int32(r))[:clusters] for r in (100, 1100))
    rows.append({"quantity": "mbarrier arrival at the peer, one way", "value": float(np.median((long_ - short) / 2000)),
                 "unit": "cycles"})  # fmt: skip
    for row in rows:
        print(row, flush=True)
    common.write_rows(out_dir / "dsmem_h200.csv", rows)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()
