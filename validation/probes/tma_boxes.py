"""Device probe: how long TMA tensor copies take one SM, from HBM and from L2, alone and with every SM copying.

Our FA3 kernel's consumers wait ~1960 cycles for their 32 KiB Q tile (two 16 KiB boxes from HBM) and ~1440 for
16 KiB (`v3_cta_timeline_summary_h200.csv`), where the model's copy took ~700: it gives a TMA copy no rate of its
own, only the L2/HBM latency. `tma_boxes.cu`: one thread per CTA issues `boxes` copies of 64 columns x 128 rows of
bf16 (16 KiB each, 128-byte swizzle, as the kernel's) of its own head's rows and waits for them, either all at once
on one mbarrier ("together") or each waited for before the next ("serial"); records the SM cycles to the data in
shared memory. Sources: "hbm" (L2 flushed before each run) and "l2" (the same rows read by the run before).
CTAs: 1 (an idle GPU) or one per SM (every SM copying its own rows). Medians over CTAs of 5 runs.
Writes tma_boxes_h200.csv. Run on the GPU machine from the repository root:
`PYTHONPATH=. python3 validation/probes/tma_boxes.py OUT`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common
from cupy_kernels.v3 import launch

SOURCE = Path(__file__).resolve().parent / "tma_boxes.cu"
BOX_BYTES = 128 * 128
BOXES = (1, 2, 4, 8, 12)
RUNS = 5


def main() -> None:
    out_dir = Path(sys.argv[1])
    sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
    module = cp.RawModule(code=common.load_source(SOURCE), options=launch.NVRTC_OPTIONS)
    kernel = module.get_function("tma_boxes")
    smem = max(BOXES) * BOX_BYTES + 1024
    kernel.max_dynamic_shared_size_bytes = smem
    shape = (1, sms, 128 * max(BOXES), 64)
    data = common.random_tensor(shape, "bf16", 0)
    tensor_map = cp.asarray(np.frombuffer(launch.encode_tensor_map(data.data.ptr, shape, 128), dtype=np.uint8))
    flush = common.L2Flusher()
    rows: list[dict[str, object]] = []
    for ctas in (1, sms):
        cycles = cp.zeros(2 * ctas, dtype=cp.int64)
        for source in ("hbm", "l2"):
            for serial in (0, 1):
                for boxes in BOXES:
                    issue, done = [], []
                    for _ in range(RUNS):
                        flush()
                        if source == "l2":  # the same rows once more: this run leaves them in L2
                            kernel((ctas,), (32,), (tensor_map, np.int32(boxes), np.int32(0), cycles), shared_mem=smem)
                        kernel((ctas,), (32,), (tensor_map, np.int32(boxes), np.int32(serial), cycles), shared_mem=smem)
                        per_cta = cycles.get().reshape(ctas, 2).astype(np.float64)
                        issue += list(per_cta[:, 0])
                        done += list(per_cta[:, 1])
                    median_done = float(np.median(done))
                    rows.append({
                        "ctas": ctas, "source": source, "mode": "serial" if serial else "together", "boxes": boxes,
                        "bytes": boxes * BOX_BYTES, "issue_cycles": float(np.median(issue)),
                        "done_cycles": median_done, "done_p90_cycles": float(np.percentile(done, 90)),
                        "bytes_per_clk": boxes * BOX_BYTES / median_done,
                    })  # fmt: skip
                    print(rows[-1], flush=True)
    common.write_rows(out_dir / "tma_boxes_h200.csv", rows)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()
