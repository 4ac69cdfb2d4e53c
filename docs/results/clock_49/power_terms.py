"""Would a power term for another unit explain what the tensor-active clock leaves? Per timed run of our kernels
(the H200's and the lent H100's measurement CSVs), fast mode at the counted clock (the power model off) gives the
run's tensor activity u and each unit's busy share a; the clock law with one more term, f = min(1980 MHz,
tensor_active, tensor_saturated x (u + w a)^(-1/3)), is fitted over w = 0, 0.02, ..., 0.6 per chip and unit (mean
relative error against the counted clock). Not kept: the best term of any unit takes the H200's error from 1.34% to
1.25% and the H100's from 2.20% to 1.95%, every unit alike (collinear).

`python docs/results/clock_49/power_terms.py > docs/results/clock_49/power_terms.txt`
"""

from __future__ import annotations

import statistics
from pathlib import Path

import simgpu.api as api
from simgpu import load_arch, simulate
from simgpu.engine import RunStats
from simgpu.validation import case_arch, read_cases

ROOT = Path(__file__).resolve().parents[3]
SOURCES = {
    "h200": ("validation/h200/kernels_h200.csv", "validation/h200/v3_kernels_h200.csv"),
    "h100": (
        "validation/h200/kernels_on_h100/kernels_h100.csv",
        "validation/h200/kernels_on_h100/v3_kernels_h100.csv",
    ),
}
UNITS = ("mufu", "fma", "smem", "l2", "issue")
CARD_MAX_MHZ = 1980.0


def activities(chip: str) -> list[tuple[float, float, dict[str, float]]]:
    """Per tensor run: counted MHz, tensor activity, busy shares."""
    seen: list[float] = []
    make_result = api.make_result

    def keep(stats: RunStats, **fields: object) -> object:
        seen.append(stats.tensor_activity)
        return make_result(stats, **fields)  # type: ignore[arg-type]

    api.make_result = keep  # type: ignore[assignment]
    out = []
    try:
        for path in SOURCES[chip]:
            for case in read_cases(ROOT / path, chip):
                result = simulate(case_arch(case), case.algo, case.problem, case.options, mode="fast")
                if seen[-1] > 0:
                    out.append((case.clock_mhz, seen[-1], dict(result.busy)))
    finally:
        api.make_result = make_result  # type: ignore[assignment]
    return out


def error(runs: list[tuple[float, float, dict[str, float]]], chip: str, unit: str, weight: float) -> float:
    power = load_arch(chip).power
    assert power is not None and power.tensor_active_clock_hz is not None
    saturated, active = power.tensor_saturated_clock_hz / 1e6, power.tensor_active_clock_hz / 1e6
    errors = []
    for mhz, u, busy in runs:
        law = saturated * (u + weight * busy[unit]) ** (-1 / 3)
        errors.append(abs(min(CARD_MAX_MHZ, active, law) - mhz) / mhz)
    return statistics.mean(errors)


def main() -> None:
    for chip in SOURCES:
        runs = activities(chip)
        print(f"{chip}: {len(runs)} tensor runs, without a term {100 * error(runs, chip, UNITS[0], 0.0):.2f}%")
        for unit in UNITS:
            weight = min((w / 50 for w in range(31)), key=lambda w: error(runs, chip, unit, w))
            print(f"  + w x busy[{unit}]: best w {weight:.2f}, {100 * error(runs, chip, unit, weight):.2f}%")


if __name__ == "__main__":
    main()
