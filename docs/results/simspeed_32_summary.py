"""The issue-8 figures of `benchmarks.simspeed` CSVs: `python docs/results/simspeed_32_summary.py CSV...` prints per CSV
the cases timed, those at or under 50 ms, the median and slowest fast-mode wall time, and the median 128k / 1k ratio
over the arch x algorithm x pass groups that have both (with how many are within 2x)."""

import csv
import statistics
import sys
from collections import defaultdict


def main() -> None:
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as handle:
            rows = [row for row in csv.DictReader(handle) if row.get("fast_median_s")]
        times = [float(row["fast_median_s"]) for row in rows]
        by_group: defaultdict[tuple[str, str, str], dict[int, float]] = defaultdict(dict)
        for row in rows:
            by_group[row["arch"], row["algo"], row["pass"]][int(row["seqlen"])] = float(row["fast_median_s"])
        ratios = [group[131072] / group[1024] for group in by_group.values() if 131072 in group and 1024 in group]
        print(
            f"{path}: {len(times)} cases, {sum(t <= 0.05 for t in times)} at or under 50 ms, median "
            f"{statistics.median(times):.3f} s, slowest {max(times):.3f} s; 128k / 1k median "
            f"{statistics.median(ratios):.2f}x ({sum(r <= 2 for r in ratios)} of {len(ratios)} within 2x)"
        )


if __name__ == "__main__":
    main()
