"""Device probe: standard attention as PyTorch runs it in a GPT-2 layer, kernel by kernel.

FA1's GPT-2 medium comparison (Fig. 2 left: 40.3 GB of HBM traffic for standard attention's forward + backward) and
its Fig. 1 (right), which splits that attention into Matmul, Mask, Softmax, Dropout and Matmul, measure PyTorch's
eager attention: the scores written by a batched GEMM, the causal mask applied by its own elementwise kernel, the
softmax, the dropout (which also writes its keep mask), the second GEMM; autograd's backward runs the mirror image.
This writes that sequence in the form of Megatron-LM's unfused path (`baddbmm` with the scale as alpha,
`masked_fill_` with a [1, 1, N, N] boolean mask, `softmax`, `dropout`, `bmm`), fp16, on contiguous (B x H, N, d)
operands (no layout copies), and measures it at GPT-2 medium's shape (B = 64, H = 16, N = 1024, d = 64), with the
dropout of GPT-2's config (p = 0.1) and without it.

`python3 validation/probes/torch_gpt2_attention.py OUT` (from the repository root) writes
- `torch_gpt2_kernels_h200.csv`: every GPU kernel of one forward + backward (torch.profiler, the median over
  `REPEATS` profiled iterations after warm-up), in launch order, with its pass (fwd / bwd);
- `torch_gpt2_times_h200.csv`: forward and backward wall time by CUDA events (median of `REPEATS`);
- `torch_gpt2_count_<variant>.txt`: the kernels of one iteration (for the Nsight Compute runs below).
`python3 validation/probes/torch_gpt2_attention.py --iterate VARIANT` runs two iterations and nothing else: the
target of `torch_gpt2_attention.sh`, which reads each kernel's DRAM bytes and executed instructions with Nsight
Compute (the second iteration's kernels are the last `count` ones). `--maskfill KIND` runs `masked_fill_` alone
(`mask_fill`). `TORCH_ATTN_SHAPE="B,H,N,d"` runs another shape, its files named with `_n<N>`
(`torch_gpt2_more.sh`).
"""

from __future__ import annotations

import csv
import math
import os
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

# GPT-2 medium: batch, heads, seqlen, headdim (FA1 Fig. 2 left); TORCH_ATTN_SHAPE="B,H,N,d" runs another shape.
SHAPE = tuple(int(n) for n in os.environ.get("TORCH_ATTN_SHAPE", "64,16,1024,64").split(","))
SUFFIX = "" if "TORCH_ATTN_SHAPE" not in os.environ else f"_n{SHAPE[2]}"  # the other shapes' files
VARIANTS = {"dropout": 0.1, "nodropout": 0.0}  # GPT-2's attn_pdrop is 0.1
WARMUP = 2
REPEATS = 5


def tensors() -> tuple[torch.Tensor, ...]:
    batch, heads, seqlen, headdim = SHAPE
    shape = (batch * heads, seqlen, headdim)
    q, k, v = (torch.randn(shape, device="cuda", dtype=torch.float16, requires_grad=True) for _ in range(3))
    grad = torch.randn(shape, device="cuda", dtype=torch.float16)
    mask = torch.triu(torch.ones(seqlen, seqlen, device="cuda", dtype=torch.bool), diagonal=1).view(
        1, 1, seqlen, seqlen
    )
    return q, k, v, grad, mask


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor, p: float) -> torch.Tensor:
    batch, heads, seqlen, headdim = SHAPE
    scores = torch.empty(batch * heads, seqlen, seqlen, device="cuda", dtype=torch.float16)
    scores = torch.baddbmm(scores, q, k.transpose(1, 2), beta=0.0, alpha=1.0 / math.sqrt(headdim))
    scores = scores.view(batch, heads, seqlen, seqlen)
    scores.masked_fill_(mask, -10000.0)
    probs = torch.softmax(scores, dim=-1)
    if p:
        probs = F.dropout(probs, p, training=True)
    return torch.bmm(probs.view(batch * heads, seqlen, seqlen), v)


def iteration(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, grad: torch.Tensor, mask: torch.Tensor, p: float
) -> None:
    out = attention(q, k, v, mask, p)
    out.backward(grad)
    q.grad = k.grad = v.grad = None


def measure(out: Path, variant: str) -> tuple[list[dict[str, object]], dict[str, object]]:
    p = VARIANTS[variant]
    q, k, v, grad, mask = tensors()
    for _ in range(WARMUP):
        iteration(q, k, v, grad, mask, p)
    torch.cuda.synchronize()
    fwd_ms, bwd_ms = [], []
    for _ in range(REPEATS):
        start, middle, end = (torch.cuda.Event(enable_timing=True) for _ in range(3))
        start.record()
        result = attention(q, k, v, mask, p)
        middle.record()
        result.backward(grad)
        end.record()
        torch.cuda.synchronize()
        fwd_ms.append(start.elapsed_time(middle))
        bwd_ms.append(middle.elapsed_time(end))
        q.grad = k.grad = v.grad = None
    durations: dict[tuple[int, str, str], list[float]] = defaultdict(list)
    for _ in range(REPEATS):
        order = 0
        result = None
        for pass_ in ("fwd", "bwd"):
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                if pass_ == "fwd":
                    result = attention(q, k, v, mask, p)
                else:
                    result.backward(grad)
                torch.cuda.synchronize()
            events = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
            kernels = [e for e in events if not e.name.startswith(("Memset", "Memcpy"))]
            for event in sorted(kernels, key=lambda e: e.time_range.start):
                durations[order, event.name, pass_].append(event.time_range.elapsed_us())
                order += 1
        q.grad = k.grad = v.grad = None
    count = len({order for order, _, _ in durations})
    (out / f"torch_gpt2_count_{variant}{SUFFIX}.txt").write_text(f"{count}\n")
    batch, heads, seqlen, headdim = SHAPE
    run = {
        "gpu": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "variant": variant,
        "dropout": p,
        "batch": batch,
        "heads": heads,
        "seqlen": seqlen,
        "headdim": headdim,
    }
    rows: list[dict[str, object]] = [
        {
            **run,
            "order": order,
            "pass": pass_,
            "kernel": name[:240],
            "median_us": statistics.median(times),
            "profiled_iterations": len(times),
        }
        for (order, name, pass_), times in sorted(durations.items())
    ]
    times = {
        **run,
        "fwd_ms": statistics.median(fwd_ms),
        "bwd_ms": statistics.median(bwd_ms),
        "fwd_bwd_ms": statistics.median(f + b for f, b in zip(fwd_ms, bwd_ms, strict=True)),
        "repeats": REPEATS,
    }
    return rows, times


def write_csv(path: Path, rows: list[dict[str, object]]) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def mask_fill(kind: str) -> None:
    """`masked_fill_` alone on a random S, twice, with a mask of `kind`: "causal" (the upper triangle), "none" (all
    False: nothing filled) or "all" (all True): whether its DRAM reads of S depend on the mask."""
    batch, heads, seqlen, _ = SHAPE
    scores = torch.randn(batch, heads, seqlen, seqlen, device="cuda", dtype=torch.float16)
    ones = torch.ones(seqlen, seqlen, device="cuda", dtype=torch.bool)
    mask = {"causal": torch.triu(ones, diagonal=1), "none": ~ones, "all": ones}[kind].view(1, 1, seqlen, seqlen)
    for _ in range(2):
        scores.masked_fill_(mask, -10000.0)
    torch.cuda.synchronize()


def main() -> None:
    if sys.argv[1] == "--maskfill":
        mask_fill(sys.argv[2])
        return
    if sys.argv[1] == "--iterate":
        p = VARIANTS[sys.argv[2]]
        q, k, v, grad, mask = tensors()
        for _ in range(2):
            iteration(q, k, v, grad, mask, p)
        torch.cuda.synchronize()
        return
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    kernels, times = [], []
    for variant in VARIANTS:
        rows, timing = measure(out, variant)
        kernels += rows
        times.append(timing)
        print(f"{variant}: fwd {timing['fwd_ms']:.3f} ms, bwd {timing['bwd_ms']:.3f} ms", flush=True)
        for row in rows:
            print(
                f"  {row['order']:2} {row['pass']} {row['median_us']:9.1f} us  {str(row['kernel'])[:110]}", flush=True
            )
    write_csv(out / f"torch_gpt2_kernels{SUFFIX}_h200.csv", kernels)
    write_csv(out / f"torch_gpt2_times{SUFFIX}_h200.csv", times)


if __name__ == "__main__":
    main()
