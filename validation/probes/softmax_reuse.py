"""Device probe: where the second pass of our standard-attention softmax (`std_softmax` in
`cupy_kernels/standard/attention.cu`, one warp per row, 4 rows a CTA) stops hitting in L2.

The kernel reads each row of S twice (max and sum, then P). With 16k tokens and 32 heads (B = 16384 / N), the rows
in flight chip-wide are 132 SMs x 64 warps; their bytes, 8448 x 2N, pass the H200's 60 MiB of L2 near N = 3.7k.
Nsight Compute's DRAM read bytes per softmax launch, divided by S's bytes, give the passes that came from HBM (1
while the re-reads hit, 2 when none does); its L2 bytes show whether the re-reads went to L2 (not L1). Each N is
also timed (CUDA events, median, L2 flushed between runs).

  PYTHONPATH=. python3 validation/probes/softmax_reuse.py OUT_DIR     (runs ncu on itself; writes
  OUT_DIR/softmax_reuse_h200.csv; `SOFTMAX_SEQLENS` picks the N)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import cupy as cp

from cupy_kernels import common
from cupy_kernels.standard import launch as standard

# `SOFTMAX_SEQLENS=1280,1536,...` in the environment probes other N (the twenty-sixth session's finer sweep).
SEQLENS = tuple(int(n) for n in os.environ.get("SOFTMAX_SEQLENS", "1024,2048,2560,3072,3584,4096,5120,8192").split(","))
TOKENS, HEADS = 16384, 32
METRICS = "dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum"
# `SOFTMAX_EXTRA_METRICS=a,b` in the environment: more Nsight Compute metrics, each a column of its own.
EXTRA_METRICS = tuple(filter(None, os.environ.get("SOFTMAX_EXTRA_METRICS", "").split(",")))


def tensors(n: int) -> tuple[object, object, object]:
    lds = standard.padded_seqlen(n)
    s = common.random_tensor((TOKENS // n, HEADS, n, lds), "bf16", n)
    return s, cp.empty_like(s), cp.empty((TOKENS // n, HEADS, n), dtype=cp.float32)


def ncu_target() -> None:
    """One softmax launch per N, in `SEQLENS` order (what ncu profiles)."""
    for n in SEQLENS:
        standard.softmax(*tensors(n))
    cp.cuda.runtime.deviceSynchronize()


def main(out: Path) -> None:
    metrics = common.ncu_self_metrics(__file__, "std_softmax", ",".join((METRICS, *EXTRA_METRICS)))
    flush = common.L2Flusher()
    rows = []
    for n, m in zip(SEQLENS, metrics, strict=True):
        s, p, lse = tensors(n)
        s_bytes = s.nbytes
        timing = common.time_gpu(lambda s=s, p=p, lse=lse: standard.softmax(s, p, lse), flush=flush)
        rows.append({
            "gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
            "batch": TOKENS // n, "heads": HEADS, "seqlen": n, "s_bytes": s_bytes,
            "dram_read_bytes": m["dram__bytes_read.sum"], "dram_write_bytes": m["dram__bytes_write.sum"],
            "l2_bytes": m["lts__t_bytes.sum"], "passes_from_dram": m["dram__bytes_read.sum"] / s_bytes,
            "l2_reads_over_s": (m["lts__t_bytes.sum"] - m["dram__bytes_write.sum"]) / s_bytes,
            "median_ms": timing.median_ms,
            **{name: m[name] for name in EXTRA_METRICS},
        })  # fmt: skip
        print(rows[-1])
    common.write_rows(out / "softmax_reuse_h200.csv", rows)


if __name__ == "__main__":
    if sys.argv[1] == "--target":
        ncu_target()
    else:
        main(Path(sys.argv[1]))
