"""Two runs of an `experiments.fast_vs_exact` grid side by side: each run's counts of cases within 1 / 2.5 / 5% of
exact mode's cycles, its largest departure and its cases with bytes equal, then every case whose fast/exact moved.

`python docs/results/clock_49/compare_grid.py BEFORE.csv AFTER.csv`
"""

from __future__ import annotations

import csv
import sys

KEY = ("arch", "algo", "pass", "causal", "sms", "batch", "heads", "seqlen_q", "headdim")


def counts(rows: list[dict[str, str]]) -> str:
    errors = [abs(float(r["fast_over_exact"]) - 1) for r in rows]
    within = [sum(e <= bound for e in errors) for bound in (0.01, 0.025, 0.05)]
    equal = sum(r["bytes_equal"] == "True" for r in rows)
    return f"{len(rows)} cases, within 1 / 2.5 / 5%: {within}, largest {max(errors):.4f}, bytes equal {equal}"


def rows(path: str) -> list[dict[str, str]]:
    with open(path, encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def main(before_path: str, after_path: str) -> None:
    before = {tuple(r[k] for k in KEY): r for r in rows(before_path)}
    after = rows(after_path)
    print(f"before: {counts(list(before.values()))}")
    print(f"after:  {counts(after)}")
    for row in after:
        key = tuple(row[k] for k in KEY)
        old, new = float(before[key]["fast_over_exact"]), float(row["fast_over_exact"])
        if abs(old - new) > 1e-6:
            print(" ".join(key), f"{old:.4f} -> {new:.4f}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
