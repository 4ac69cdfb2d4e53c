"""Two production kernels on the H200: cuDNN's attention (Hopper's wgmma kernels) over PyTorch's FlashAttention-2,
forward and backward, on FA2's sweep (`validation/probes/torch_fa2.py`,
`validation/h200/torch_{cudnn,fa2}*_h200.csv`) against FA3's published 1.5-2.0x forward and 1.5-1.75x backward over
FA2; and the v3 schedule (fast mode, the H200 file at each cuDNN run's counted SM clock, the power model off as
`simgpu validate` does for a known clock) against cuDNN's times. Errors are predicted time over measured, minus 1.
Run: `python docs/results/production_ratio_h200.py`; with `--chip h100`, the H100's run on the H100 file
(`validation/h200/production_on_h100/`, forty-fifth session), output `production_ratio_h100.txt`."""

from __future__ import annotations

import argparse
import csv
import statistics
from collections import defaultdict
from pathlib import Path

from simgpu import Problem, SimgpuError, load_arch, simulate

MEASURED = {"h200": Path("validation/h200"), "h100": Path("validation/h200/production_on_h100")}


def rows(path: Path) -> dict[tuple[int, int, bool], dict[str, str]]:
    table = csv.DictReader(path.open())
    return {(int(r["headdim"]), int(r["seqlen"]), r["causal"] == "True"): r for r in table}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chip", choices=sorted(MEASURED), default="h200")
    chip = parser.parse_args().chip
    errors: dict[tuple[str, int], list[float]] = defaultdict(list)
    ratios: dict[tuple[str, int], list[float]] = defaultdict(list)
    for pass_, suffix in (("fwd", ""), ("bwd", "bwd_")):
        measured = MEASURED[chip] / f"torch_cudnn_{suffix}{chip}.csv"
        if not measured.exists():
            continue
        fa2, cudnn = rows(MEASURED[chip] / f"torch_fa2_{suffix}{chip}.csv"), rows(measured)
        for key, row in cudnn.items():
            headdim, seqlen, causal = key
            ratio = float(row["tflops"]) / float(fa2[key]["tflops"])
            ratios[pass_, headdim].append(ratio)
            problem = Problem(int(row["batch"]), int(row["heads"]), seqlen, headdim, causal=causal, pass_=pass_)
            arch = load_arch(chip, {"clock_hz": float(row["sm_clock_mhz_counted"]) * 1e6, "power": None})
            try:
                error = simulate(arch, "v3", problem).time_s * 1e3 / float(row["median_ms"]) - 1
            except SimgpuError as err:  # a tile the schedule's defaults cannot fit
                modelled = f"v3 model: {type(err).__name__}"
            else:
                errors[pass_, headdim].append(error)
                modelled = f"v3 model {error:+.3f}"
            print(f"{pass_} d={headdim} causal={causal!s:5} N={seqlen:5}: cuDNN {float(row['tflops']):.0f} TFLOP/s, "
                  f"{ratio:.2f}x FA2's; {modelled}")  # fmt: skip
    print("## per pass and head dimension (12 runs each)")
    for key in sorted(ratios):
        low, high = min(ratios[key]), max(ratios[key])
        modelled = errors.get(key, [])
        summary = "no v3 model run" if not modelled else (
            f"v3 model against cuDNN MAPE {100 * statistics.fmean(abs(e) for e in modelled):.1f}% "
            f"(mean {100 * statistics.fmean(modelled):+.1f}%, {len(modelled)} runs)"
        )  # fmt: skip
        print(f"{key[0]} d={key[1]}: cuDNN over FA2 {low:.2f}-{high:.2f}x; {summary}")


if __name__ == "__main__":
    main()
