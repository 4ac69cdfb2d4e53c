"""Device probe: the SM clock at known shares of tensor-core work (forty-ninth session, issue 6's clocks).

`tensor_clock.cu` runs chaotic FFMA chains with two mma.sync m16n8k16 every PERIOD-th loop iteration (or none, or
mma.sync alone), one wave of four 256-thread CTAs per SM. Each variant is timed in `runner.Bench.time` (a loop of
about 0.6 s; its rates per second and the clock by the kernels' own cycle counters, as `simgpu calibrate`), and the
variants run twice, in order and in reverse, so that a clock state a variant leaves cannot pass for the next one's.
Per run: the counted clock, the FFMA rate, and the tensor activity u (mma FLOPs per second over 132 SMs x 4096 FLOP
per clock at the counted clock, `simgpu.clock`). Run on the GPU machine from the repository root:
`PYTHONPATH=. python3 validation/probes/tensor_clock.py OUT` writes `OUT/tensor_clock.csv` and prints the rows.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common
from cupy_kernels.calibrate import runner

SOURCE = Path(__file__).resolve().parent / "tensor_clock.cu"
CTAS_PER_SM, THREADS, CHAINS, MMAS = 4, 256, 8, 2
NATIVE_FLOPS_PER_CLK = 4096  # wgmma bf16 per SM per clock: the activity's reference (archs/h100.yaml)
MMA_FLOPS = 2 * 16 * 8 * 16  # one mma.sync m16n8k16
VARIANTS = ((64, 0), (64, 1024), (64, 64), (64, 1), (8, 1), (0, 1))  # (FFMA steps per iteration, mma period)


def main() -> None:
    out_dir = Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    names = [f"tensor_clock<{steps}, {period}>" for steps, period in VARIANTS]
    module = cp.RawModule(code=common.load_source(SOURCE), options=common.NVRTC_OPTIONS, name_expressions=names)
    seed = runner._random_words(257, seed=5).view(cp.float32)
    words = runner._random_words(192, seed=7)
    facts = common.gpu_facts()
    (out_dir / "gpu.txt").write_text("".join(f"{k}: {v}\n" for k, v in facts.items()), encoding="utf-8")
    sampler = common.ClockSampler()
    rows = []
    try:
        bench = runner.Bench("full", sampler)
        ctas = bench.sms * CTAS_PER_SM
        warps = CTAS_PER_SM * THREADS // 32
        for order in ("forward", "reverse"):
            variants = VARIANTS if order == "forward" else VARIANTS[::-1]
            for steps, period in variants:
                ffma_per_iter = CTAS_PER_SM * THREADS * CHAINS * steps  # per SM
                mma_flops_per_iter = warps * MMAS * MMA_FLOPS / period if period else 0.0  # per SM
                # Cycles per iteration at the pipes' rates (128 FFMA, 2730 mma.sync FLOP per clock per SM).
                cycles_per_iter = max(ffma_per_iter / 128, mma_flops_per_iter / 2730, 1.0)
                iters = max(1, round(bench.target_kernel_s * runner.ASSUMED_CLOCK_HZ / cycles_per_iter))
                kernel = module.get_function(f"tensor_clock<{steps}, {period}>")
                result = bench.time(
                    lambda cycles, kernel=kernel, iters=iters: kernel(
                        (ctas,), (THREADS,), (seed, words, np.int32(iters), np.uint32(runner.KEY), bench.sink, cycles)
                    ),
                    ctas,
                    float(bench.sms * (ffma_per_iter + mma_flops_per_iter) * iters),
                    "work",
                    f"{steps} FFMA steps, mma period {period}",
                    {"steps": steps, "period": period, "iters": iters},
                )
                seconds = float(bench.sms * (ffma_per_iter + mma_flops_per_iter) * iters) / result["per_s"]
                mhz = float(result["kernel_clock_mhz"])
                mma_per_s = bench.sms * mma_flops_per_iter * iters / seconds
                row = {
                    "gpu": facts["gpu_name"],
                    "order": order,
                    "ffma_steps": steps,
                    "mma_period": period,
                    "iters": iters,
                    "kernel_ms": 1e3 * seconds,
                    "counted_mhz": mhz,
                    "smi_mhz": result.get("clock_mhz"),
                    "ffma_per_s": bench.sms * ffma_per_iter * iters / seconds,
                    "tensor_activity": mma_per_s / (bench.sms * NATIVE_FLOPS_PER_CLK * mhz * 1e6),
                }
                rows.append(row)
                print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()))
    finally:
        sampler.close()
    with (out_dir / "tensor_clock.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()
