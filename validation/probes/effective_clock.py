"""Device probe: the SM clock kernels really run at, by cycle counting right after each timed window.

nvidia-smi/NVML overstate the SM clock under tensor load (validation/h200/README.md), and a cuBLAS GEMM cannot be
instrumented. So after every timed window of a workload, a 20 us spin kernel on every SM reads its cycle counter
and the global timer: the power controller reacts in milliseconds, so the probe sees the clock the window ended
at. Workloads: torch bf16 8192^3 matmul (burst, then sustained), our FA2 forward kernel (mma.sync), a device copy.
Writes effective_clock_h200.csv: workload, window, TFLOP/s or TB/s, probe clock (median over SMs), NVML clock.
Run on the GPU machine from the repository root: `python3 validation/probes/effective_clock.py OUT_DIR`.
"""

from __future__ import annotations

import csv
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cupy as cp
import pynvml
import torch

from cupy_kernels.v2 import launch as fa2

PROBE = cp.RawKernel(
    r"""
extern "C" __global__ void clock_probe(unsigned long long* out, unsigned long long duration_ns) {
  unsigned long long t0, t1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  const long long c0 = clock64();
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1)); } while (t1 - t0 < duration_ns);
  const long long c1 = clock64();
  if (threadIdx.x == 0) { out[2 * blockIdx.x] = t1 - t0; out[2 * blockIdx.x + 1] = c1 - c0; }
}
""",
    "clock_probe",
)
SMS = 132


def probe_mhz() -> float:
    """Median over SMs of cycles / ns, right now."""
    out = cp.zeros(2 * SMS, dtype=cp.uint64)
    PROBE((SMS,), (32,), (out, cp.uint64(20_000)))
    cp.cuda.runtime.deviceSynchronize()
    pairs = out.get().reshape(SMS, 2)
    return statistics.median(1e3 * float(c) / float(t) for t, c in pairs)


def timed(work: Callable[[], None], count: int) -> float:
    """Seconds for `count` back-to-back calls of `work`, device-synchronized."""
    torch.cuda.synchronize()
    cp.cuda.runtime.deviceSynchronize()
    start = time.perf_counter()
    for _ in range(count):
        work()
    torch.cuda.synchronize()
    cp.cuda.runtime.deviceSynchronize()
    return time.perf_counter() - start


def main() -> None:
    out_dir = Path(sys.argv[1])
    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(0)
    rows: list[dict[str, object]] = []

    def record(workload: str, window: str, rate: float, unit: str) -> None:
        rows.append(
            {
                "gpu": torch.cuda.get_device_name(0),
                "workload": workload,
                "window": window,
                "rate": rate,
                "unit": unit,
                "probe_clock_mhz": probe_mhz(),
                "nvml_clock_mhz": pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM),
                "nvml_power_w": pynvml.nvmlDeviceGetPowerUsage(handle) / 1000.0,
            }
        )
        print(rows[-1], flush=True)

    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    gemm = lambda: torch.matmul(a, b)  # noqa: E731
    timed(gemm, 3)
    time.sleep(3.0)
    record("gemm_bf16_8192", "burst", 10 * 2 * n**3 / timed(gemm, 10) / 1e12, "TFLOP/s")
    for w in range(12):
        record("gemm_bf16_8192", f"sustained{w}", 50 * 2 * n**3 / timed(gemm, 50) / 1e12, "TFLOP/s")

    time.sleep(3.0)
    batch, heads, seqlen, d = 4, 16, 4096, 128
    rng = cp.random.default_rng(0)
    q, k, v = (fa2_input(rng, (batch, heads, seqlen, d)) for _ in range(3))
    attention = lambda: fa2.forward(q, k, v)  # noqa: E731
    timed(attention, 3)
    flop = 4 * batch * heads * seqlen * seqlen * d
    for w in range(6):
        record("fa2_fwd_b4_h16_n4096_d128", f"window{w}", 40 * flop / timed(attention, 40) / 1e12, "TFLOP/s")

    time.sleep(2.0)
    src = cp.empty(2**31, dtype=cp.uint8)
    dst = cp.empty_like(src)
    copy = lambda: dst.__setitem__(Ellipsis, src)  # noqa: E731
    timed(copy, 3)
    for w in range(4):
        record("device_copy_2GiB", f"window{w}", 20 * 2 * src.nbytes / timed(copy, 20) / 1e12, "TB/s")

    out_dir.mkdir(parents=True, exist_ok=True)
    with (out_dir / "effective_clock_h200.csv").open("w", newline="") as handle_out:
        writer = csv.DictWriter(handle_out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def fa2_input(rng: cp.random.Generator, shape: tuple[int, ...]) -> cp.ndarray:
    """Random bf16 values as the uint16 bit patterns the FA2 launcher takes."""
    from cupy_kernels.common import to_bf16_bits

    return to_bf16_bits(rng.standard_normal(shape, dtype=cp.float32))


if __name__ == "__main__":
    main()
