"""Device probe: PyTorch's flash backend of `scaled_dot_product_attention` (FlashAttention-2, a production kernel) on
FA2's sweep (16k tokens, hidden 2048: d = 64, 128, 256 with 32, 16, 8 heads; seqlen 512..16k; causal and not; bf16;
forward), timed with CUDA events (median of `REPEATS` calls after `WARMUP`). The SM clock two ways: counted on the
SM by `cupy_kernels.common.ClockTrace`'s probe warp inside the timed calls (what the model is run at), and as NVML
reports it every 2 ms (which reads high under load: `validation/h200/concurrent_clock_h200.csv`). What
`docs/results/torch_fa2_vs_model.py` compares with the v2 schedule under both of its K/V layouts. Run on the GPU
machine from the repository root: `PYTHONPATH=. python3 validation/probes/torch_fa2.py OUT_DIR [bwd] [cudnn]` (writes
`torch_fa2_h200.csv`, or with `bwd` the backward alone, each timed call after an untimed forward:
`torch_fa2_bwd_h200.csv`; backward FLOPs 2.5 x the forward's; with `cudnn`, cuDNN's attention, Hopper's wgmma
kernels, instead: `torch_cudnn_*h200.csv`; shapes a backend does not take are left out).
"""

from __future__ import annotations

import csv
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pynvml
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.functional import scaled_dot_product_attention

from cupy_kernels.common import ClockTrace

TOKENS = 16384
HIDDEN = 2048
WARMUP = 5
REPEATS = 30
CHECKED_SEQLEN = 1024  # the correctness check's longest sequence


def sampler(handle: object, samples: list[tuple[float, float]], stop: threading.Event) -> None:
    while not stop.is_set():
        samples.append((time.perf_counter(), float(pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM))))
        time.sleep(0.002)


def measure_backward(headdim: int, seqlen: int, causal: bool, handle: object, backend: SDPBackend) -> dict[str, object]:
    """The backward alone: each timed call runs a forward outside the events, then `backward` inside them."""
    batch, heads = TOKENS // seqlen, HIDDEN // headdim
    shape = (batch, heads, seqlen, headdim)
    q, k, v = (torch.randn(shape, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    grad = torch.randn(shape, device="cuda", dtype=torch.bfloat16)
    times_ms = []
    samples: list[tuple[float, float]] = []
    stop = threading.Event()
    trace = ClockTrace()
    with sdpa_kernel(backend):
        for n in range(WARMUP + REPEATS):
            out = scaled_dot_product_attention(q, k, v, is_causal=causal)
            begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()
            if n == WARMUP:
                thread = threading.Thread(target=sampler, args=(handle, samples, stop))
                thread.start()
                trace.start()
            timed = n >= WARMUP
            if timed:
                trace.mark(end=False)
            begin.record()
            out.backward(grad)
            end.record()
            if timed:
                trace.mark(end=True)
            torch.cuda.synchronize()
            if timed:
                times_ms.append(begin.elapsed_time(end))
            q.grad = k.grad = v.grad = None
    counted = trace.stop()
    stop.set()
    thread.join()
    clocks = [clock for _, clock in samples]
    return row("bwd", (batch, heads, seqlen, headdim), causal, times_ms, counted, clocks, float("nan"))


def measure(headdim: int, seqlen: int, causal: bool, handle: object, backend: SDPBackend) -> dict[str, object]:
    batch, heads = TOKENS // seqlen, HIDDEN // headdim
    q, k, v = (torch.randn(batch, heads, seqlen, headdim, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    error = float("nan")
    if seqlen <= CHECKED_SEQLEN:  # against fp32 math (which holds the whole score matrix)
        with sdpa_kernel(SDPBackend.MATH):
            reference = scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal)
    with sdpa_kernel(backend):
        out = scaled_dot_product_attention(q, k, v, is_causal=causal)
        if seqlen <= CHECKED_SEQLEN:
            error = float((out.float() - reference).norm() / reference.norm())
        times_ms, counted, clocks = timed_calls(lambda: scaled_dot_product_attention(q, k, v, is_causal=causal), handle)
    return row("fwd", (batch, heads, seqlen, headdim), causal, times_ms, counted, clocks, error)


def timed_calls(call: Callable[[], object], handle: object) -> tuple[list[float], float, list[float]]:
    """`WARMUP` untimed calls of `call`, then `REPEATS` timed with CUDA events: their times (ms), the SM clock counted
    on the SM beside them (MHz, `ClockTrace`) and NVML's clock samples taken while they ran (MHz)."""
    for _ in range(WARMUP):
        call()
    torch.cuda.synchronize()
    samples: list[tuple[float, float]] = []
    stop = threading.Event()
    thread = threading.Thread(target=sampler, args=(handle, samples, stop))
    thread.start()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(REPEATS)]
    trace = ClockTrace()
    trace.start()
    started = time.perf_counter()
    for begin, end in events:
        trace.mark(end=False)
        begin.record()
        call()
        end.record()
        trace.mark(end=True)
    torch.cuda.synchronize()
    finished = time.perf_counter()
    counted = trace.stop()
    stop.set()
    thread.join()
    times_ms = [begin.elapsed_time(end) for begin, end in events]
    return times_ms, counted, [clock for moment, clock in samples if started <= moment <= finished]


def row(
    pass_: str,
    shape: tuple[int, int, int, int],
    causal: bool,
    times_ms: list[float],
    counted_mhz: float,
    nvml_mhz: list[float],
    error: float,
) -> dict[str, object]:
    """One CSV row: the run, its median time and TFLOP/s (FLOPs as the papers count them: the backward 2.5 x the
    forward, causal half), the counted and the NVML clock."""
    batch, heads, seqlen, headdim = shape
    flops = (2.5 if pass_ == "bwd" else 1.0) * 4.0 * batch * heads * seqlen * seqlen * headdim
    median_ms = statistics.median(times_ms)
    return {
        "gpu": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "pass": pass_,
        "batch": batch,
        "heads": heads,
        "seqlen": seqlen,
        "headdim": headdim,
        "causal": causal,
        "median_ms": median_ms,
        "min_ms": min(times_ms),
        "tflops": flops * (0.5 if causal else 1.0) / (median_ms * 1e-3) / 1e12,
        "sm_clock_mhz_counted": counted_mhz,
        "sm_clock_mhz_mean": statistics.fmean(nvml_mhz) if nvml_mhz else float("nan"),
        "clock_samples": len(nvml_mhz),
        "rel_error_vs_fp32": error,
    }


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(0)
    backward, cudnn = "bwd" in sys.argv[2:], "cudnn" in sys.argv[2:]
    backend = SDPBackend.CUDNN_ATTENTION if cudnn else SDPBackend.FLASH_ATTENTION
    rows = []
    for headdim in (64, 128, 256):
        for causal in (False, True):
            for seqlen in (512, 1024, 2048, 4096, 8192, 16384):
                try:
                    row = (measure_backward if backward else measure)(headdim, seqlen, causal, handle, backend)
                except RuntimeError as err:  # a shape the backend does not take
                    print(f"d={headdim} causal={causal!s:5} N={seqlen:5}: not run ({err})".splitlines()[0], flush=True)
                    continue
                rows.append(row)
                print(
                    f"d={headdim} causal={causal!s:5} N={seqlen:5}: {row['median_ms']:.3f} ms "
                    f"{row['tflops']:.0f} TFLOP/s at {row['sm_clock_mhz_counted']:.0f} MHz counted, "
                    f"{row['sm_clock_mhz_mean']:.0f} NVML "
                    f"(error {row['rel_error_vs_fp32']:.1e})",
                    flush=True,
                )
    name = f"torch_{'cudnn' if cudnn else 'fa2'}_{'bwd_' if backward else ''}h200.csv"
    with (out / name).open("w", newline="") as handle_out:
        writer = csv.DictWriter(handle_out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()
