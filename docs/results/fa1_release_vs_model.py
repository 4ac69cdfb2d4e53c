"""FlashAttention-1 as released (v1.0.9's forward kernels, measured by `validation/probes/fa1_release.py` on an H200
or an H100: `validation/h200/fa1_release/fa1_release_*.csv`) against the v1 schedule's `release` variant (its
default) with the release's split grid (`splits`, as the kernel chose them), fast mode on the chip's arch file at
each run's SM clock as counted on the SM (the power model off: the clock is known, as `simgpu validate` does). Per
run: the measured time and TFLOP/s, the splits the release's launch template chose against the schedule's
`release_splits`, and the predicted time's error (predicted over measured, minus 1); then the MAPE per chip, head
dimension and causal flag. With `--exact`, exact mode over the runs up to `EXACT_SEQLEN` (about a minute each).
Run: `python docs/results/fa1_release_vs_model.py [--exact]`."""

from __future__ import annotations

import argparse
import csv
import statistics
from collections import defaultdict
from pathlib import Path

from algorithms.v1.schedule import release_splits
from simgpu import Problem, load_arch, simulate

MEASURED = Path("validation/h200/fa1_release")
EXACT_SEQLEN = 2048  # exact mode's longest sequence here: a split CTA's key blocks x query steps grow as N^2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--exact", action="store_true", help="exact mode instead of fast mode")
    mode = "exact" if parser.parse_args().exact else "fast"
    errors: dict[tuple[str, int, bool], list[float]] = defaultdict(list)
    rows = [row for path in sorted(MEASURED.glob("fa1_release_*.csv")) for row in csv.DictReader(path.open())]
    for row in rows:
        chip = "h100" if "H100" in row["gpu"] else "h200"
        headdim, causal, seqlen = int(row["headdim"]), row["causal"] == "True", int(row["seqlen"])
        if mode == "exact" and seqlen > EXACT_SEQLEN:
            continue
        problem = Problem(int(row["batch"]), int(row["heads"]), seqlen, headdim, causal=causal)
        clock_mhz = float(row["sm_clock_mhz_counted"])
        arch = load_arch(chip, {"clock_hz": clock_mhz * 1e6, "power": None})
        # The v1.0.9 kernel's grid: (batch, heads, splits), the splits its launch template chose.
        result = simulate(arch, "v1", problem, {"splits": int(row["splits"])}, mode=mode)
        measured_ms = float(row["median_ms"])
        error = result.time_s * 1e3 / measured_ms - 1
        errors[chip, headdim, causal].append(error)
        print(
            f"{chip} d={headdim} causal={causal!s:5} N={seqlen:>5}: measured {measured_ms:.3f} ms "
            f"({float(row['tflops']):.0f} TFLOP/s at {clock_mhz:.0f} MHz), splits {row['splits']} "
            f"(model {release_splits(arch, problem)}); predicted {result.time_s * 1e3:.3f} ms, {error:+.3f}, "
            f"bound by {result.bottleneck}"
        )
    print(f"## MAPE (mean error) per chip, head dimension and causal flag, {mode} mode")
    for (chip, headdim, causal), values in sorted(errors.items()):
        mape = statistics.fmean(abs(v) for v in values)
        mean = statistics.fmean(values)
        print(f"{chip} d={headdim} causal={causal!s:5}: MAPE {100 * mape:.1f}% (mean {100 * mean:+.1f}%)")
    every = [abs(v) for values in errors.values() for v in values]
    print(f"all {len(every)} runs: MAPE {100 * statistics.fmean(every):.1f}%")


if __name__ == "__main__":
    main()
