"""Device probe: bf16 8192^3 GEMM throughput with the SM clock sampled in the same process (NVML, every 2 ms).

Answers whether the simulator's GEMM gap on the H200 is the clock (power limit) or the tensor-core rate per
clock: for each timed window it writes TFLOP/s, the mean SM clock and power over the window, and the achieved
fraction of the per-clock peak (4096 FLOP/clk/SM x 132 SMs x clock). Run on the GPU machine:
`python3 validation/probes/gemm_clock.py OUT_DIR`. Uses torch's matmul (cuBLAS), a production kernel.
"""

from __future__ import annotations

import csv
import sys
import threading
import time
from pathlib import Path

import pynvml
import torch

SIZE = 8192
FLOP = 2.0 * SIZE**3
PEAK_FLOP_PER_CLK = 4096 * 132


def sampler(handle: object, samples: list[tuple[float, float, float]], stop: threading.Event) -> None:
    while not stop.is_set():
        clock = pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM)
        power = pynvml.nvmlDeviceGetPowerUsage(handle) / 1000.0
        samples.append((time.perf_counter(), float(clock), power))
        time.sleep(0.002)


def window(a: torch.Tensor, b: torch.Tensor, count: int) -> tuple[float, float, float]:
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(count):
        torch.matmul(a, b)
    torch.cuda.synchronize()
    return start, time.perf_counter(), FLOP * count


def main() -> None:
    out = Path(sys.argv[1])
    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(0)
    samples: list[tuple[float, float, float]] = []
    stop = threading.Event()
    thread = threading.Thread(target=sampler, args=(handle, samples, stop), daemon=True)
    thread.start()
    a = torch.randn(SIZE, SIZE, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(SIZE, SIZE, device="cuda", dtype=torch.bfloat16)
    window(a, b, 3)
    time.sleep(3.0)  # cool down: the first windows are the short burst the ceilings file measured
    windows = [("burst", *window(a, b, 10))]
    windows += [("sustained", *window(a, b, 50)) for _ in range(40)]
    stop.set()
    thread.join()
    rows = []
    for kind, start, end, flop in windows:
        inside = [(c, p) for t, c, p in samples if start <= t <= end]
        clock = sum(c for c, _ in inside) / len(inside)
        power = sum(p for _, p in inside) / len(inside)
        tflops = flop / (end - start) / 1e12
        rows.append(
            {
                "gpu": torch.cuda.get_device_name(0),
                "window": kind,
                "seconds": end - start,
                "tflops": tflops,
                "sm_clock_mhz_mean": clock,
                "power_w_mean": power,
                "samples": len(inside),
                "fraction_of_peak_at_clock": flop / (end - start) / (PEAK_FLOP_PER_CLK * clock * 1e6),
            }
        )
    out.mkdir(parents=True, exist_ok=True)
    with (out / "gemm_clock_h200.csv").open("w", newline="") as handle_out:
        writer = csv.DictWriter(handle_out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    for row in rows[:3] + rows[-3:]:
        print({k: (round(v, 3) if isinstance(v, float) else v) for k, v in row.items()})


if __name__ == "__main__":
    main()
