"""Summary of `python -m experiments.fast_vs_exact --fa2` (`docs/results/fast_vs_exact_fa2.csv`): per arch, algorithm
and pass, how many of FA2's benchmark shapes fast mode puts within 1% of exact mode in cycles, the range of fast over
exact, and the shapes whose HBM bytes differ. `python docs/results/looked_at_48/fa2_sweep/summary.py >
docs/results/looked_at_48/fa2_sweep/summary.txt` from the repository root."""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

CSV = Path(__file__).resolve().parents[2] / "fast_vs_exact_fa2.csv"


def main() -> None:
    groups: dict[tuple[str, str, str], list[dict[str, str]]] = defaultdict(list)
    with CSV.open(newline="") as file:
        for row in csv.DictReader(file):
            groups[row["arch"], row["algo"], row["pass"]].append(row)
    within = 0
    for (arch, algo, pass_), rows in sorted(groups.items()):
        ratios = [float(row["fast_over_exact"]) for row in rows]
        within += sum(abs(r - 1) <= 0.01 for r in ratios)
        off = [
            f"N={row['seqlen_q']} d={row['headdim']} ({float(row['hbm_bytes_fast_over_exact']):.3f})"
            for row in rows
            if row["bytes_equal"] != "True"
        ]
        print(
            f"{arch} {algo} {pass_}: cycles within 1% in {sum(abs(r - 1) <= 0.01 for r in ratios)} of {len(rows)},"
            f" {min(ratios):.3f}-{max(ratios):.3f}; HBM bytes unequal (fast over exact): {', '.join(off) or 'none'}"
        )
    print(f"all: cycles within 1% in {within} of {sum(len(rows) for rows in groups.values())}")


if __name__ == "__main__":
    main()
