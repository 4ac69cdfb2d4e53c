"""Summary of a `benchmarks.simspeed` CSV: cases at or under 50 ms, the median and slowest, each case over 50 ms,
and the 128k-over-1k ratio per arch x algorithm x pass
(`python docs/results/session_66/speed_summary.py docs/results/session_66/speed_start/simspeed.csv`)."""

from __future__ import annotations

import csv
import statistics
import sys
from collections import defaultdict


def main(path: str) -> None:
    with open(path, newline="") as handle:
        rows = [row for row in csv.DictReader(handle) if row["fast_median_s"]]
    times = [float(row["fast_median_s"]) for row in rows]
    print(f"{len(rows)} cases, at or under 50 ms: {sum(t <= 0.05 for t in times)}, median "
          f"{statistics.median(times):.4f} s, slowest {max(times):.4f} s")  # fmt: skip
    over = sorted((row for row in rows if float(row["fast_median_s"]) > 0.05), key=lambda r: -float(r["fast_median_s"]))
    for row in over:
        print(f"  {row['arch']} {row['algo']} {row['pass']} {row['seqlen']}: {float(row['fast_median_s']):.3f} s")
    by_case: dict[tuple[str, str, str], dict[int, float]] = defaultdict(dict)
    for row in rows:
        by_case[row["arch"], row["algo"], row["pass"]][int(row["seqlen"])] = float(row["fast_median_s"])
    ratios = {key: t[131072] / t[1024] for key, t in by_case.items() if 131072 in t and 1024 in t}
    print(f"128k over 1k: {len(ratios)} cases, median {statistics.median(ratios.values()):.2f}x, within 2x "
          f"{sum(r <= 2 for r in ratios.values())}")  # fmt: skip
    for key, ratio in sorted(ratios.items(), key=lambda item: -item[1]):
        print(f"  {' '.join(key)}: {ratio:.2f}x ({by_case[key][1024]:.4f} -> {by_case[key][131072]:.4f} s)")


if __name__ == "__main__":
    main(sys.argv[1])
