"""This session's full `benchmarks.simspeed` run against the sixty-sixth session's (the sixty-fifth session's code):
per arch x algorithm x pass, the median over sequence lengths of the time ratio, and the cases over 50 ms in either
(`python docs/results/session_68/speed/compare_66.py`). The VM's speed moves by 10% and more between runs."""

from __future__ import annotations

import csv
import statistics
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
BEFORE = HERE.parents[1] / "session_66/speed_start/simspeed.csv"
NOW = HERE / "simspeed.csv"


def times(path: Path) -> dict[tuple[str, str, str, int], float]:
    with path.open() as handle:
        return {
            (row["arch"], row["algo"], row["pass"], int(row["seqlen"])): float(row["fast_median_s"])
            for row in csv.DictReader(handle)
            if row.get("fast_median_s")
        }


def main() -> None:
    before, now = times(BEFORE), times(NOW)
    ratios: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for key, seconds in now.items():
        if key in before:
            ratios[key[:3]].append(seconds / before[key])
    print("arch algo pass: median of now / before over the sequence lengths (range)")
    for key, values in sorted(ratios.items()):
        print(f"  {' '.join(key)}: {statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})")
    over = [(key, before.get(key), seconds) for key, seconds in now.items() if seconds > 0.05]
    print(f"over 50 ms now: {len(over)}; before: {sum(s > 0.05 for s in before.values())}")


if __name__ == "__main__":
    main()
