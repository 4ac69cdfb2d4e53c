"""Fast mode's mean departure from exact mode (mean |fast / exact - 1| of cycles) and the cases within 1%, per set,
before the fifty-fifth session (the baselines it started from, `before/`) and after its two changes (this folder);
for the causal set also with the variant not kept (`not_kept_share_copy/`).
`python docs/results/spread_load_55/mean_departures.py > mean_departures.txt`"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent
sys.path.insert(0, str(RESULTS / "clock_49"))
sys.path.insert(0, str(RESULTS / "rounds_48"))

from compare_grid import ratios  # noqa: E402  (the grids' reader, found on the path above)

SETS = (
    ("grid", HERE / "before/fast_vs_exact.csv", HERE / "grid/fast_vs_exact.csv"),
    ("whole chips", RESULTS / "slot_misses_54/whole/fast_vs_exact_whole.csv", HERE / "whole/fast_vs_exact_whole.csv"),
    ("causal", HERE / "before/fast_vs_exact_causal.csv", HERE / "causal/fast_vs_exact_causal.csv"),
    (
        "causal, not kept: shares copied",
        HERE / "before/fast_vs_exact_causal.csv",
        HERE / "not_kept_share_copy/causal/fast_vs_exact_causal.csv",
    ),
    ("FA2's shapes", HERE / "before/fast_vs_exact_fa2.csv", HERE / "fa2/fast_vs_exact_fa2.csv"),
    ("random, seed 0", HERE / "before/fast_random.csv", HERE / "random/fast_random.csv"),
)


def main() -> None:
    report(SETS)


def report(sets: tuple[tuple[str, Path, Path], ...]) -> None:
    """Per set (name, the CSV before, the CSV after): the mean departure and the cases within 1% in each."""
    for name, before_path, after_path in sets:
        before, after = ratios(before_path), ratios(after_path)
        cases = [case for case in before if case in after]
        summary = []
        for run in (before, after):
            departures = [abs(run[case] - 1) for case in cases]
            summary.append(
                f"mean {100 * statistics.mean(departures):.2f}%, within 1% {sum(d < 0.01 for d in departures)}"
            )
        print(f"{name}, {len(cases)} cases: before {summary[0]}; after {summary[1]}")


if __name__ == "__main__":
    main()
