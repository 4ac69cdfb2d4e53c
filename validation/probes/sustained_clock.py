"""Device probe: the SM clock, counted in SM cycles, in the sustained power state of a long bf16 GEMM loop.

nvidia-smi / NVML over-read the clock under tensor-core load (1800 MHz read while wgmma counted 1598 by its own
cycles), so the sustained clock of `gemm_clock_h200.csv` (NVML) cannot feed the arch file. Here a 40 s loop of
torch bf16 8192^3 matmuls (cuBLAS, as the ceilings file's 693 TFLOP/s) is interrupted every 50 products by one
short launch of `wgmma_rate<2, true>` (`cupy_kernels/calibrate/wgmma.cu`, 1 CTA per SM, saturated wgmma), whose
CTAs count their cycles: cycles / event time is the clock in that power state. Each row: seconds since the loop
started, the GEMM window's TFLOP/s, the probe's cycle-counted clock, its per-SM FLOP per cycle, NVML's clock and
power right after. Run on the GPU machine: `PYTHONPATH=. python3 validation/probes/sustained_clock.py OUT_DIR`.
"""

from __future__ import annotations

import csv
import sys
import time
from pathlib import Path

import numpy as np
import pynvml
import torch

from cupy_kernels.calibrate import runner
from cupy_kernels.common import cp

SIZE = 8192
GEMM_FLOP = 2.0 * SIZE**3
GEMMS_PER_WINDOW = 50
LOOP_S = 40.0
WARPGROUPS = 2
PROBE_ITERS = 4000  # 4000 x 512 cycles of wgmma work: ~1.3 ms at 1.6 GHz


def main() -> None:
    out = Path(sys.argv[1])
    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(0)
    sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
    kernel = runner._kernel(runner.WGMMA_SOURCE, f"wgmma_rate<{WARPGROUPS}, true>", runner.WGMMA_DYNAMIC_SMEM)
    seed = runner._random_bf16_pairs(4096, seed=7)
    sink = cp.zeros(1, dtype=cp.uint32)
    cycles = cp.zeros(sms, dtype=cp.uint64)
    probe_flop_per_sm = WARPGROUPS * runner.WGMMA_FLOP_PER_ITER * PROBE_ITERS

    def probe() -> tuple[float, float]:
        cycles.fill(0)
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        kernel((sms,), (128 * WARPGROUPS,), (seed, np.int32(PROBE_ITERS), np.uint32(runner.KEY), sink, cycles),
               shared_mem=runner.WGMMA_DYNAMIC_SMEM)  # fmt: skip
        end.record()
        end.synchronize()
        slowest = float(cp.asnumpy(cycles).max())
        ms = float(cp.cuda.get_elapsed_time(start, end))
        return slowest / (ms * 1e3), probe_flop_per_sm / slowest

    a = torch.randn(SIZE, SIZE, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(SIZE, SIZE, device="cuda", dtype=torch.bfloat16)
    probe()  # compile and warm up
    torch.matmul(a, b)
    torch.cuda.synchronize()
    time.sleep(3.0)
    rows = []
    cold_clock, cold_rate = probe()
    rows.append({"seconds": 0.0, "gemm_tflops": "", "probe_clock_mhz": cold_clock, "probe_flop_per_clk_sm": cold_rate,
                 "nvml_clock_mhz": pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM),
                 "nvml_power_w": pynvml.nvmlDeviceGetPowerUsage(handle) / 1000.0})  # fmt: skip
    begin = time.perf_counter()
    while time.perf_counter() - begin < LOOP_S:
        torch.cuda.synchronize()
        started = time.perf_counter()
        for _ in range(GEMMS_PER_WINDOW):
            torch.matmul(a, b)
        torch.cuda.synchronize()
        tflops = GEMMS_PER_WINDOW * GEMM_FLOP / (time.perf_counter() - started) / 1e12
        clock, rate = probe()
        rows.append({"seconds": time.perf_counter() - begin, "gemm_tflops": tflops, "probe_clock_mhz": clock,
                     "probe_flop_per_clk_sm": rate,
                     "nvml_clock_mhz": pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM),
                     "nvml_power_w": pynvml.nvmlDeviceGetPowerUsage(handle) / 1000.0})  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    with (out / "sustained_clock_h200.csv").open("w", newline="") as handle_out:
        writer = csv.DictWriter(handle_out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    last = rows[len(rows) // 2 :]
    print(f"cold probe: {cold_clock:.0f} MHz; windows {len(rows) - 1}")
    print(f"second half: GEMM median {np.median([r['gemm_tflops'] for r in last]):.1f} TFLOP/s, probe clock median "
          f"{np.median([r['probe_clock_mhz'] for r in last]):.0f} MHz, NVML clock median "
          f"{np.median([r['nvml_clock_mhz'] for r in last]):.0f} MHz")  # fmt: skip


if __name__ == "__main__":
    main()
