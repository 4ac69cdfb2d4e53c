"""Fast mode's mean departure from exact mode (mean |fast / exact - 1| of cycles) and the cases within 1%, per set,
before the fifty-sixth session's persistent claims (the fifty-fifth session's runs; for seed 7 this session's run at
its start, `before/`) and after them (this folder).
`python docs/results/claims_56/mean_departures.py > docs/results/claims_56/mean_departures.txt`"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent
sys.path.insert(0, str(RESULTS / "clock_49"))
sys.path.insert(0, str(RESULTS / "rounds_48"))

from compare_grid import ratios  # noqa: E402  (the grids' reader, found on the path above)

BEFORE = RESULTS / "spread_load_55"
SETS = (
    ("grid", BEFORE / "grid/fast_vs_exact.csv", HERE / "grid/fast_vs_exact.csv"),
    ("whole chips", BEFORE / "whole/fast_vs_exact_whole.csv", HERE / "whole/fast_vs_exact_whole.csv"),
    ("causal", BEFORE / "causal/fast_vs_exact_causal.csv", HERE / "causal/fast_vs_exact_causal.csv"),
    ("FA2's shapes", BEFORE / "fa2/fast_vs_exact_fa2.csv", HERE / "fa2/fast_vs_exact_fa2.csv"),
    ("random, seed 0", BEFORE / "random/fast_random.csv", HERE / "random/fast_random.csv"),
    ("random, seed 7", HERE / "before/fast_random_seed7.csv", HERE / "random7/fast_random.csv"),
)


def main() -> None:
    for name, before_path, after_path in SETS:
        before, after = ratios(before_path), ratios(after_path)
        cases = [case for case in before if case in after]
        summary = []
        for run in (before, after):
            departures = [abs(run[case] - 1) for case in cases]
            summary.append(
                f"mean {100 * statistics.mean(departures):.3f}%, within 1% {sum(d < 0.01 for d in departures)}"
            )
        print(f"{name}, {len(cases)} cases: before {summary[0]}; after {summary[1]}")


if __name__ == "__main__":
    main()
