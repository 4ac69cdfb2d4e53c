"""Two runs of a fast-vs-exact comparison side by side: an `experiments.fast_vs_exact` grid's CSV, or
`benchmarks.fast_random`'s (told by its columns). Each run's count of cases within 1 / 2.5 / 5% of exact mode's
cycles and its largest departure, then how many cases moved and how many of those came nearer exact mode, then every
case that moved. The rows are read as `rounds_48/compare.py` reads them.

`python docs/results/clock_49/compare_grid.py BEFORE.csv AFTER.csv`
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rounds_48"))  # `compare`, the grids' reader

from compare import GRID_KEY, rows

RANDOM_KEY = ("arch", "algo", "batch", "heads", "seqlen_q", "seqlen_k", "headdim", "causal", "dtype", "pass_")
RANDOM_KEY += ("options", "sms", "l2_bytes")


def ratios(path: Path) -> dict[tuple[str, ...], float]:
    """Fast over exact cycles per compared case. The random set's cases are keyed by their draw's number too: two draws
    can come out alike."""
    with path.open(newline="") as file:
        drawn = list(csv.DictReader(file))
    if "cycles_fast_over_exact" not in drawn[0]:
        return {case: float(row["fast_over_exact"]) for case, row in rows(path, GRID_KEY).items()}
    return {
        (str(number), *(row[k] for k in RANDOM_KEY)): float(row["cycles_fast_over_exact"])
        for number, row in enumerate(drawn)
        if row["cycles_fast_over_exact"]
    }


def counts(values: dict[tuple[str, ...], float]) -> str:
    errors = [abs(value - 1) for value in values.values()]
    within = " / ".join(str(sum(e <= bound for e in errors)) for bound in (0.01, 0.025, 0.05))
    return f"{len(errors)} cases, within 1 / 2.5 / 5%: {within}, largest {max(errors):.4f}"


def main(before_path: str, after_path: str) -> None:
    before, after = ratios(Path(before_path)), ratios(Path(after_path))
    print(f"before: {counts(before)}")
    print(f"after:  {counts(after)}")
    moved = [(case, before[case], new) for case, new in after.items() if abs(before[case] - new) > 1e-6]
    nearer = sum(abs(new - 1) < abs(old - 1) for _, old, new in moved)
    print(f"moved: {len(moved)}, nearer exact mode: {nearer}")
    for case, old, new in moved:
        print(" ".join(case), f"{old:.4f} -> {new:.4f}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
