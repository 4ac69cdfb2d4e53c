"""`experiments.v3_ablation`'s CSV summarized: per (head dimension, ping-pong, overlap) variant, the mean absolute error
of the model's cycles per key tile over the builds with parts taken out, and over all
(`python docs/results/session_67/ablation_summary.py CSV`)."""

from __future__ import annotations

import csv
import statistics
import sys
from collections import defaultdict


def main(path: str) -> None:
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    errors: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for row in rows:
        errors[row["headdim"], row["pingpong"], row["intra_wg_overlap"]].append(abs(float(row["rel_error"])))
    for (headdim, pingpong, overlap), values in sorted(errors.items()):
        variant = f"d={headdim:>3} pingpong={pingpong:5} overlap={overlap:5}"
        print(f"{variant}: {statistics.mean(values):6.1%} over {len(values)}")
    every = [value for values in errors.values() for value in values]
    print(f"all: {statistics.mean(every):.1%} over {len(every)} builds")


if __name__ == "__main__":
    main(sys.argv[1])
