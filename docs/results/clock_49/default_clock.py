"""Our kernels' measured times against the model at the clock it picks itself (the power model on, not the counted
clock that `simgpu validate` takes), before and after the tensor-active clock ceiling (forty-ninth session).

Per measurement CSV of our kernels (the H200's and the lent H100's, `simgpu.validation.read_cases`): fast mode on
the arch file as shipped ("after") and with `power.tensor_active_clock_hz` removed ("before"); the lent H100 ran
unlocked at up to 1980 MHz, so its file is taken at `clock_hz` 1980 MHz (its own 1830 is FA3's locked clock). Per
algorithm: MAPE of the time, mean signed error, and the model's clock against the counted one.

`python docs/results/clock_49/default_clock.py > docs/results/clock_49/default_clock.txt`
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from pathlib import Path

from simgpu import load_arch, simulate
from simgpu.validation import read_cases

ROOT = Path(__file__).resolve().parents[3]
SOURCES = (
    ("h200", "validation/h200/kernels_h200.csv", {}),
    ("h200", "validation/h200/v3_kernels_h200.csv", {}),
    ("h100", "validation/h200/kernels_on_h100/kernels_h100.csv", {"clock_hz": 1.98e9}),
    ("h100", "validation/h200/kernels_on_h100/v3_kernels_h100.csv", {"clock_hz": 1.98e9}),
)
SETTINGS = {"before": {"power.tensor_active_clock_hz": None}, "after": {}}


def main() -> None:
    rows: dict[tuple[str, str, str], dict[str, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
    for chip, path, overrides in SOURCES:
        for case in read_cases(ROOT / path, chip):
            for setting, extra in SETTINGS.items():
                arch = load_arch(chip, {**overrides, **extra})
                result = simulate(arch, case.algo, case.problem, case.options, mode="fast")
                error = result.time_s * 1e3 / case.measured_ms - 1
                clock_error = result.clock_hz / 1e6 / case.clock_mhz - 1
                rows[chip, case.algo, case.problem.pass_][setting].append((error, clock_error))
    print("chip  algo     pass  runs | before: MAPE  mean  clock |  after: MAPE  mean  clock")
    print("(time: model / measured - 1; clock: the model's / the counted one - 1)")
    for (chip, algo, pass_), settings in sorted(rows.items()):
        cells = []
        for setting in SETTINGS:
            errors = settings[setting]
            mape = 100 * statistics.mean(abs(e) for e, _ in errors)
            mean = 100 * statistics.mean(e for e, _ in errors)
            clock = 100 * statistics.mean(c for _, c in errors)
            cells.append(f"{mape:5.1f}% {mean:+5.1f}% {clock:+5.1f}%")
        print(f"{chip}  {algo:8s} {pass_:4s} {len(settings['after']):4d} | {cells[0]} | {cells[1]}")
    for chip in ("h200", "h100"):
        for setting in SETTINGS:
            errors = [e for (c, _, _), s in rows.items() if c == chip for e, _ in s[setting]]
            mape = 100 * statistics.mean(abs(e) for e in errors)
            print(f"{chip} all {len(errors)} runs, {setting}: MAPE {mape:.1f}%")


if __name__ == "__main__":
    main()
