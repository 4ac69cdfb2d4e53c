"""The forty-eighth session's simspeed run at its end (e49a0c8; one run, no A/B: `../alone_fit_48/fast_ab.txt` holds
the CPU-time A/B of the session's one speed change): cases at or under 50 ms, the median and slowest, 128k over 1k,
the cases over 50 ms. `python docs/results/speed_48/summary.py [CSV] > docs/results/speed_48/summary.txt` (another
session's simspeed CSV as the argument)."""

from __future__ import annotations

import csv
import statistics
import sys
from pathlib import Path

CSV = Path(__file__).resolve().parent / "simspeed_end.csv"


def main(path: Path = CSV) -> None:
    with path.open(newline="") as handle:
        times = {
            (row["arch"], row["algo"], row["pass"], int(row["seqlen"])): float(row["fast_median_s"])
            for row in csv.DictReader(handle)
            if row["fast_median_s"]
        }
    slowest = max(times, key=times.__getitem__)
    print(
        f"{len(times)} cases, {sum(t <= 0.05 for t in times.values())} at or under 50 ms, median"
        f" {statistics.median(times.values()):.4f} s, slowest {times[slowest]:.3f} s {' '.join(map(str, slowest))}"
    )
    ratios = [times[(a, al, p, 131072)] / times[(a, al, p, 1024)] for (a, al, p, n) in times if n == 131072]
    within = sum(r <= 2 for r in ratios)
    print(f"128k over 1k: median {statistics.median(ratios):.2f}x, {within} of {len(ratios)} within 2x")
    over = sorted(((t, case) for case, t in times.items() if t > 0.05), reverse=True)
    print("over 50 ms:", ", ".join(f"{' '.join(map(str, case))} {1000 * t:.0f} ms" for t, case in over))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else CSV)
