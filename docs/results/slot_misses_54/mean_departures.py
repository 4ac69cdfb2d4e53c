"""Fast mode's mean departure from exact mode (mean |fast / exact - 1| of cycles) over the whole-chip and causal sets,
before this session (the committed baselines), with its change, and with the variant not kept (first reads counted
per slot too, `not_kept/`). `python docs/results/slot_misses_54/mean_departures.py > mean_departures.txt`"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "clock_49"))
sys.path.insert(0, str(HERE.parent / "rounds_48"))

from compare_grid import ratios  # noqa: E402  (the grids' reader, found on the path above)

SETS = (
    (
        "whole chips",
        HERE.parent / "saturated_53/whole/fast_vs_exact_whole.csv",
        HERE / "whole/fast_vs_exact_whole.csv",
        HERE / "not_kept/whole/fast_vs_exact_whole.csv",
    ),
    (
        "causal",
        HERE / "causal_base.csv",
        HERE / "causal/fast_vs_exact_causal.csv",
        HERE / "not_kept/causal/fast_vs_exact_causal.csv",
    ),
)


def main() -> None:
    for name, *paths in SETS:
        runs = [ratios(path) for path in paths]
        cases = [case for case in runs[0] if all(case in run for run in runs)]
        means = [100 * statistics.mean(abs(run[case] - 1) for case in cases) for run in runs]
        print(
            f"{name}, {len(cases)} cases: before {means[0]:.2f}%, with the change {means[1]:.2f}%, "
            f"first reads per slot too {means[2]:.2f}%"
        )


if __name__ == "__main__":
    main()
