"""Device probe: one SM's TMA copy from HBM while the other SMs stream copies from L2 or from HBM.

Our FA3 kernel's later CTAs wait ~1960 cycles for their Q tile (d=128, two boxes from HBM;
`v3_cta_timeline_summary_h200.csv`) where one box on an idle chip takes 870-1000 (`tma_cold_summary_h200.csv`):
the other SMs are streaming K and V meanwhile. `loaded_latency.cu`: CTA 0 copies 16 KiB boxes from HBM one at a
time and times each; the others (131, or fewer) stream boxes (`inflight` at a time) from a region all of them share (L2
after its first pass) or from regions of their own (HBM). L2 is flushed by a fill before each run, as in every
timing of ours. Writes loaded_latency_h200.csv (per setting: the prober's median and p90 over its copies after the
first of each run, and the streamers' bytes per SM clock). Run on the GPU machine from the repository root:
`PYTHONPATH=. python3 validation/probes/loaded_latency.py OUT`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common
from cupy_kernels.v3 import launch

SOURCE = Path(__file__).resolve().parent / "loaded_latency.cu"
BOX_BYTES = 128 * 128
MAX_PROBES = 32
PROBES = 24
STREAM_HEADS = 64  # 4 MiB of heads per streaming CTA: 524 MiB in all, far beyond L2
STREAM_CYCLES = 400_000
SETTLE_CYCLES = 50_000
RUNS = 3
SMEM_BYTES = 160 * 1024  # one CTA per SM
# (source, boxes in flight per streaming SM, streaming SMs): the first run's settings, then a ladder of HBM streams
# over fewer SMs and more boxes (how many requests in flight the HBM serves side by side).
SETTINGS = (
    ("idle", 0, 0),
    ("l2", 1, 131),
    ("l2", 2, 131),
    ("l2", 4, 131),
    ("hbm", 1, 131),
    ("hbm", 2, 131),
    ("hbm", 4, 131),
    *(("hbm", boxes, sms) for sms in (16, 33, 66, 98) for boxes in (1, 2, 4, 8)),
    *(("hbm", boxes, 131) for boxes in (3, 6, 8)),
)


def main() -> None:
    out_dir = Path(sys.argv[1])
    sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
    module = cp.RawModule(code=common.load_source(SOURCE), options=launch.NVRTC_OPTIONS)
    kernel = module.get_function("loaded_latency")
    kernel.max_dynamic_shared_size_bytes = SMEM_BYTES
    heads = 1 + sms * STREAM_HEADS + MAX_PROBES
    shape = (1, heads, 512, 64)
    data = common.random_tensor(shape, "bf16", 0)
    tensor_map = cp.asarray(np.frombuffer(launch.encode_tensor_map(data.data.ptr, shape, 128), dtype=np.uint8))
    out = cp.zeros(sms * (MAX_PROBES + 2), dtype=cp.int64)
    flush = common.L2Flusher()
    rows: list[dict[str, object]] = []
    for source, inflight, streamers in SETTINGS:
        latencies: list[float] = []
        rates: list[float] = []
        for _ in range(RUNS):
            out.fill(0)
            flush()
            args = (tensor_map, np.int32(inflight), np.int32(streamers), np.int32(source == "l2"),
                    np.int32(STREAM_HEADS), np.int64(STREAM_CYCLES), np.int64(SETTLE_CYCLES), np.int32(PROBES),
                    out)  # fmt: skip
            kernel((sms,), (32,), args, shared_mem=SMEM_BYTES)
            per = out.get().reshape(sms, MAX_PROBES + 2).astype(np.float64)
            latencies += list(per[0, 1:PROBES])  # the first copy also fetches the map
            if inflight:
                active = per[1 : streamers + 1]
                rates.append(float(active[:, MAX_PROBES].sum() * BOX_BYTES / np.median(active[:, MAX_PROBES + 1])))
        rows.append({
            "streamers_source": source, "streamers_inflight_boxes": inflight, "streaming_sms": streamers,
            "probe_latency_median_cycles": float(np.median(latencies)),
            "probe_latency_p90_cycles": float(np.percentile(latencies, 90)),
            "streamers_bytes_per_clk": float(np.median(rates)) if rates else 0.0,
        })  # fmt: skip
        print(rows[-1], flush=True)
    common.write_rows(out_dir / "loaded_latency_h200.csv", rows)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()
