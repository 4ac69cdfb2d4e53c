"""Device probe: which kernels PyTorch's FlashAttention-2 backward launches, and how long each runs.

`torch_fa2_bwd_h200.csv` times `out.backward(grad)` whole. Against the v2 schedule's three kernels it runs 20-30%
long at 512 tokens per sequence and short at 16k: a fixed cost per call that the schedule lacks, or a main kernel
whose cost per Q block differs. This profiles the same calls (FA2's sweep: 16k tokens, hidden 2048, d = 64, 128,
256, seqlen 512..16k, causal and not, bf16) with `torch.profiler` and writes every GPU kernel of one backward call
(after warm-up; the median over `REPEATS` profiled calls per kernel) to `torch_fa2_bwd_kernels_h200.csv`: its name,
its duration, and its share of the call. Run on the GPU machine from the repository root:
`PYTHONPATH=. python3 validation/probes/torch_fa2_bwd_kernels.py OUT_DIR`.
"""

from __future__ import annotations

import statistics
import sys
from collections import defaultdict
from pathlib import Path

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.functional import scaled_dot_product_attention
from torch.profiler import ProfilerActivity, profile

from cupy_kernels.common import write_rows

TOKENS = 16384
HIDDEN = 2048
WARMUP = 3
REPEATS = 5


def kernels_of_one_backward(headdim: int, seqlen: int, causal: bool) -> list[dict[str, object]]:
    batch, heads = TOKENS // seqlen, HIDDEN // headdim
    shape = (batch, heads, seqlen, headdim)
    q, k, v = (torch.randn(shape, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    grad = torch.randn(shape, device="cuda", dtype=torch.bfloat16)
    durations: dict[tuple[int, str], list[float]] = defaultdict(list)
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        for n in range(WARMUP + REPEATS):
            out = scaled_dot_product_attention(q, k, v, is_causal=causal)
            torch.cuda.synchronize()
            if n < WARMUP:
                out.backward(grad)
            else:
                with profile(activities=[ProfilerActivity.CUDA]) as prof:
                    out.backward(grad)
                    torch.cuda.synchronize()
                events = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
                for order, event in enumerate(sorted(events, key=lambda e: e.time_range.start)):
                    durations[order, event.name].append(event.time_range.elapsed_us())
            torch.cuda.synchronize()
            q.grad = k.grad = v.grad = None
    total = sum(statistics.median(times) for times in durations.values())
    return [
        {
            "gpu": torch.cuda.get_device_name(),
            "torch": torch.__version__,
            "batch": batch,
            "heads": heads,
            "seqlen": seqlen,
            "headdim": headdim,
            "causal": causal,
            "order": order,
            "kernel": name[:200],
            "median_us": statistics.median(times),
            "profiled_calls": len(times),
            "share_of_call": statistics.median(times) / total,
        }
        for (order, name), times in sorted(durations.items())
    ]


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for causal in (False, True):
        for headdim in (64, 128, 256):
            for seqlen in (512, 1024, 2048, 4096, 8192, 16384):
                found = kernels_of_one_backward(headdim, seqlen, causal)
                rows += found
                cells = "; ".join(f"{r['kernel'][:40]} {r['median_us']:.1f}" for r in found)
                print(f"d={headdim} N={seqlen} causal={causal}: {cells}", flush=True)
    write_rows(out / "torch_fa2_bwd_kernels_h200.csv", rows)


if __name__ == "__main__":
    main()
