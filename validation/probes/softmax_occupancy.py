"""Device probe: does the second pass of our standard-attention softmax stop hitting in L2 where twice the rows in
flight outgrow L2 (`docs/results/softmax_cliff_small_chip/README.md`)? The probe `softmax_reuse.py` found the chip's
second pass hitting at N = 1k and missing from 3k on (16 CTAs of 4 rows per SM). Here the same kernel runs with 16, 8
and 4 CTAs per SM: unused dynamic shared memory (`PAD_BYTES`) limits how many fit on an SM, and so the rows in flight.
If the reading holds, the cliff moves to twice the N with half the CTAs.

Per occupancy and N: Nsight Compute's DRAM read bytes over S's bytes (the passes of S from HBM), its launch
occupancy limit from shared memory, the achieved warps, and the kernel's time (CUDA events, median, L2 flushed).

  PYTHONPATH=. python3 validation/probes/softmax_occupancy.py OUT_DIR     (runs ncu on itself; writes
  OUT_DIR/softmax_occupancy_h200.csv and OUT_DIR/gpu_h200.csv)
"""

from __future__ import annotations

import sys
from pathlib import Path

import cupy as cp

from cupy_kernels import common
from cupy_kernels.standard import launch as standard

SEQLENS = (1024, 2048, 3072, 4096, 6144, 8192)
TOKENS, HEADS = 16384, 32
# Unused dynamic shared memory per CTA and the CTAs per SM it leaves on the H200 (228 KiB per SM, 1 KiB reserved per
# CTA; the 128 threads of a CTA allow 16): 27 KiB -> 8, 52 KiB -> 4.
PAD_BYTES = {16: 0, 8: 27 * 1024, 4: 52 * 1024}
METRICS = (
    "dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,launch__occupancy_limit_shared_mem,"
    "sm__warps_active.avg.pct_of_peak_sustained_active"
)


def tensors(n: int) -> tuple[object, object, object]:
    lds = standard.padded_seqlen(n)
    s = common.random_tensor((TOKENS // n, HEADS, n, lds), "bf16", n)
    return s, cp.empty_like(s), cp.empty((TOKENS // n, HEADS, n), dtype=cp.float32)


def softmax(s: object, p: object, lse: object, pad: int) -> None:
    """`cupy_kernels.standard.launch.softmax` with `pad` bytes of dynamic shared memory the kernel does not use."""
    batch, heads, n, lds = s.shape  # type: ignore[attr-defined]
    name = standard.kernel_names(64, standard.DEFAULTS[64], False, True)[1]
    rows = batch * heads * n
    common.get_kernel(standard.SOURCE, name, pad)(
        ((rows + standard.SOFTMAX_WARPS - 1) // standard.SOFTMAX_WARPS,),
        (standard.SOFTMAX_WARPS * 32,),
        (s, p, lse, cp.int32(n), cp.int32(lds), cp.int64(rows)),
        shared_mem=pad,
    )


def ncu_target() -> None:
    """One softmax launch per occupancy and N, in that order (what ncu profiles)."""
    for pad in PAD_BYTES.values():
        for n in SEQLENS:
            softmax(*tensors(n), pad)
    cp.cuda.runtime.deviceSynchronize()


def main(out: Path) -> None:
    facts = common.write_gpu_facts(out / "gpu_h200.csv")
    metrics = iter(common.ncu_self_metrics(__file__, "std_softmax", METRICS))
    flush = common.L2Flusher()
    rows = []
    for ctas, pad in PAD_BYTES.items():
        for n in SEQLENS:
            m = next(metrics)
            s, p, lse = tensors(n)
            timing = common.time_gpu(lambda s=s, p=p, lse=lse, pad=pad: softmax(s, p, lse, pad), flush=flush)
            rows.append({
                "gpu": facts["gpu_name"], "ctas_per_sm": ctas, "pad_bytes": pad, "batch": TOKENS // n, "heads": HEADS,
                "seqlen": n, "s_bytes": s.nbytes,  # type: ignore[attr-defined]
                "dram_read_bytes": m["dram__bytes_read.sum"], "dram_write_bytes": m["dram__bytes_write.sum"],
                "l2_bytes": m["lts__t_bytes.sum"],
                "passes_from_dram": m["dram__bytes_read.sum"] / s.nbytes,  # type: ignore[attr-defined]
                "occupancy_limit_smem": m["launch__occupancy_limit_shared_mem"],
                "warps_active_pct": m["sm__warps_active.avg.pct_of_peak_sustained_active"],
                "median_ms": timing.median_ms,
            })  # fmt: skip
            print(rows[-1])
    common.write_rows(out / "softmax_occupancy_h200.csv", rows)


if __name__ == "__main__":
    if sys.argv[1] == "--target":
        ncu_target()
    else:
        main(Path(sys.argv[1]))
