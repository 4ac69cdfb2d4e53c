"""Seed 0's random problems: the mean departure of fast mode's cycles from exact mode's, with the alike-heads change
(`../random/lines32.csv.gz`) and with the fold-pays rule on top (`fast_random.csv.gz`). From the repository root:
`python docs/results/alike_heads_61/not_kept_fold_pays/mean_departure.py`."""

from __future__ import annotations

import csv
import gzip
from pathlib import Path

HERE = Path(__file__).parent


def mean_departure(path: Path) -> float:
    with gzip.open(path, "rt", encoding="utf-8") as file:
        ratios = [float(row["cycles_fast_over_exact"]) for row in csv.DictReader(file) if row["status"] == "ok"]
    return sum(abs(ratio - 1) for ratio in ratios) / len(ratios)


def main() -> None:
    for name, path in (("without", HERE.parent / "random" / "lines32.csv.gz"), ("with", HERE / "fast_random.csv.gz")):
        print(f"{name} the rule: mean departure {100 * mean_departure(path):.3f}%")


if __name__ == "__main__":
    main()
