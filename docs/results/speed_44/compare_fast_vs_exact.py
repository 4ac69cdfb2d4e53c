"""Two runs of `experiments.fast_vs_exact` (its CSVs), before and after: per run the cases whose fast over exact
cycles are within 1%, 2.5% and 5%, the mean and largest error and the cases with equal bytes; then each case whose
ratio moved, before and after.

Run: `python docs/results/speed_44/compare_fast_vs_exact.py BEFORE.csv AFTER.csv`.
"""

from __future__ import annotations

import csv
import statistics
import sys

KEY = ("arch", "algo", "pass", "causal", "sms", "batch", "heads", "seqlen_q", "headdim")


def load(path: str) -> list[dict[str, str]]:
    with open(path, encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def key(row: dict[str, str]) -> tuple[str, ...]:
    return tuple(row[c] for c in KEY if c in row)


def summary(rows: list[dict[str, str]], label: str) -> str:
    errors = [abs(float(r["fast_over_exact"]) - 1) for r in rows if r["fast_over_exact"]]
    equal = sum(r["bytes_equal"] == "True" for r in rows)
    within = ", ".join(f"{bound:g}% {sum(e <= bound / 100 for e in errors)}" for bound in (1, 2.5, 5))
    mean, largest = 100 * statistics.fmean(errors), 100 * max(errors)
    return f"{label}: {len(errors)} cases; within {within}; mean {mean:.2f}%, max {largest:.2f}%; bytes equal {equal}"


def main() -> None:
    before, after = load(sys.argv[1]), load(sys.argv[2])
    print(summary(before, "before"))
    print(summary(after, "after"))
    earlier = {key(r): r for r in before}
    for row in after:
        old = earlier.get(key(row))
        if old is not None and row["fast_over_exact"] != old["fast_over_exact"]:
            ratios = f"{old['fast_over_exact'][:7]} -> {row['fast_over_exact'][:7]}"
            print(f" moved {key(row)} {ratios} bytes equal {old['bytes_equal']} -> {row['bytes_equal']}")


if __name__ == "__main__":
    main()
