"""Device probe: FP32 FMA's rate with values that settle (calibrate's loop) against values that keep changing.

`simgpu calibrate` measures 126.7 FFMA/clk/SM at 1973 MHz (3.29e13/s) where `../shared/reference/h200_ceilings.json`
gives 2.69e13/s: 128 FFMA/clk/SM at 1591 MHz exactly. calibrate's recurrence settles on a fixed point, so its FFMAs
toggle almost no bits; if FFMAs on live values draw the card to its power cap, the clock (and the rate per second)
falls while the rate per clock stays. This times `fma_power.cu`'s two modes for `SECONDS` each, in calibrate's
`Bench.time` (rates per second, per clock by the cycle counter, the sampled clock), and samples the board's power
and SM clock with nvidia-smi through each run. Writes fma_power_h200.json. Run on the GPU machine from the
repository root: `PYTHONPATH=. python3 validation/probes/fma_power.py OUT`.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common
from cupy_kernels.calibrate import runner

SOURCE = Path(__file__).resolve().parent / "fma_power.cu"
SECONDS = 6.0
MODES = {0: "calibrate's x = 0.9995 x + b (settles)", 1: "chaotic x = 1.9 - x * x (never settles)"}


def main() -> None:
    out_dir = Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    chains, steps = runner.ALU_CHAINS, runner.ALU_STEPS
    ctas_per_sm, threads = runner.ALU_CTAS_PER_SM, runner.ALU_THREADS
    names = [f"fma_power<{mode}, {chains}, {steps}>" for mode in MODES]
    module = cp.RawModule(code=common.load_source(SOURCE), options=common.NVRTC_OPTIONS, name_expressions=names)
    seed = runner._random_words(257, seed=5).view(cp.float32)
    sampler = common.ClockSampler()
    results = {}
    try:
        bench = runner.Bench("full", sampler)
        bench.target_loop_s = SECONDS
        ctas = bench.sms * ctas_per_sm
        fma_per_iter = ctas_per_sm * threads * chains * steps
        iters = bench.iterations(fma_per_iter, runner.ASSUMED_PER_SM_PER_CLK["fma"])
        for (mode, label), name in zip(MODES.items(), names, strict=True):
            kernel = module.get_function(name)
            power = subprocess.Popen(
                ["nvidia-smi", "--query-gpu=power.draw,clocks.sm,temperature.gpu,clocks_event_reasons.active",
                 "--format=csv,noheader,nounits", "-i", "0", "-lms=100"],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            )  # fmt: skip
            time.sleep(0.3)
            result = bench.time(
                lambda cycles, kernel=kernel: kernel(
                    (ctas,), (threads,), (seed, np.int32(iters), np.uint32(runner.KEY), bench.sink, cycles)
                ),
                ctas,
                float(bench.sms * fma_per_iter * iters),
                "fma",
                label,
                {"mode": mode, "ctas": ctas, "threads": threads, "chains": chains, "steps": steps, "iters": iters},
            )
            power.terminate()
            lines = power.communicate(timeout=10)[0].splitlines()
            samples = [line.split(", ") for line in lines if line.count(",") == 3]
            watts = [float(s[0]) for s in samples if s[0].replace(".", "").isdigit()]
            result["power_w_samples"] = watts
            result["power_w_median_top_half"] = statistics.median(sorted(watts)[len(watts) // 2 :]) if watts else None
            result["smi_samples"] = samples
            results[f"mode{mode}"] = result
            print(runner.format_row(f"fma mode {mode}", result), "| W", result["power_w_median_top_half"], flush=True)
    finally:
        sampler.close()
    out = {"gpu": common.gpu_facts(), "seconds_per_benchmark": SECONDS, "benchmarks": results}
    (out_dir / "fma_power_h200.json").write_text(json.dumps(out, indent=1, default=float))


if __name__ == "__main__":
    main()
