"""The forty-fifth session's alternating simspeed runs (`ab.sh`: the code before the leak fix, 3b875cc, in a worktree
of its own with its own compiled modules, then the session's end, twice): per run the summary
(`simspeed_32_summary.py`'s figures), then per algorithm and pass the median over arch and length of the end's time
over the base's (each case the mean of its two rounds' ratios), and per length the same. Run from the repository
root: `python docs/results/speed_45/compare.py > docs/results/speed_45/compare.txt`."""

from __future__ import annotations

import csv
import statistics
from collections import defaultdict
from pathlib import Path

HERE = Path("docs/results/speed_45")
Case = tuple[str, str, str, int]


def load(name: str) -> dict[Case, float]:
    with (HERE / f"simspeed_{name}.csv").open() as handle:
        return {
            (r["arch"], r["algo"], r["pass"], int(r["seqlen"])): float(r["fast_median_s"])
            for r in csv.DictReader(handle)
            if r["fast_median_s"]
        }


def main() -> None:
    runs = {name: load(name) for name in ("base_1", "end_1", "base_2", "end_2")}
    for name, times in runs.items():
        pairs = [(times[(a, al, p, 131072)] / times[(a, al, p, 1024)]) for (a, al, p, n) in times if n == 131072]
        print(
            f"{name}: {len(times)} cases, {sum(t <= 0.05 for t in times.values())} at or under 50 ms, median "
            f"{statistics.median(times.values()):.3f} s, slowest {max(times.values()):.3f} s, 128k over 1k median "
            f"{statistics.median(pairs):.2f}x ({sum(r <= 2 for r in pairs)} of {len(pairs)} within 2x)"
        )
    ratio = {
        k: (runs["end_1"][k] / runs["base_1"][k] + runs["end_2"][k] / runs["base_2"][k]) / 2 for k in runs["base_1"]
    }
    by_pass: dict[tuple[str, str], list[float]] = defaultdict(list)
    by_length: dict[int, list[float]] = defaultdict(list)
    for (_, algo, pass_, seqlen), value in ratio.items():
        by_pass[algo, pass_].append(value)
        by_length[seqlen].append(value)
    print("end over base, median per algorithm and pass:")
    for (algo, pass_), values in sorted(by_pass.items()):
        print(f"  {algo:8} {pass_:4} {statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f})")
    print("end over base, median per length:")
    for seqlen, values in sorted(by_length.items()):
        print(f"  {seqlen:6} {statistics.median(values):.3f}")


if __name__ == "__main__":
    main()
