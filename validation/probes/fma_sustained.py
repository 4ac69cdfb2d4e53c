"""Device probe: calibrate's FP32 FMA and MUFU ex2 benchmarks, sustained for seconds instead of 0.6 s.

`simgpu calibrate` measured 126.7 FFMA/clk/SM by the cycle counter and 3.29e13 FFMA/s at a sampled 1980 MHz, where
`../shared/reference/h200_ceilings.json` gives 2.69e13/s ("102.9 per clock at 1980 MHz"). If a long FFMA loop
draws the card down its power cap (as GEMMs do: 1455-1500 MHz), the rate per second falls with the clock while the
rate per clock stays. This runs the same kernels (`cupy_kernels.calibrate.runner.bench_alu`) back to back for
`SECONDS` each, with nvidia-smi sampling the clock, and writes fma_sustained_h200.json. Run on the GPU machine from
the repository root: `PYTHONPATH=. python3 validation/probes/fma_sustained.py OUT`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cupy_kernels import common
from cupy_kernels.calibrate import runner

SECONDS = 6.0


def main() -> None:
    out_dir = Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    sampler = common.ClockSampler()
    try:
        bench = runner.Bench("full", sampler)
        bench.target_loop_s = SECONDS
        results = runner.bench_alu(bench)
    finally:
        sampler.close()
    for name, result in results.items():
        print(runner.format_row(name, result), flush=True)
    out = {"gpu": common.gpu_facts(), "seconds_per_benchmark": SECONDS, "benchmarks": results}
    (out_dir / "fma_sustained_h200.json").write_text(json.dumps(out, indent=1, default=float))


if __name__ == "__main__":
    main()
