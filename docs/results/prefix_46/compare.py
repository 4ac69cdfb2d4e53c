"""The forty-sixth session's alternating simspeed runs (`ab.sh`: 6fb6288, the session's start, in a worktree with its
own compiled modules, then 98d8761, the session's end, twice): per run the number of cases at or under 50 ms, the
median and slowest case, and 128k over 1k (median, and how many of 22 within 2x); then every case whose time moved
by more than a fifth on average over the two rounds. Run from the repository root:
`python docs/results/prefix_46/compare.py > docs/results/prefix_46/compare.txt`; `python
docs/results/prefix_46/compare.py DIR` reads another session's runs (`DIR/simspeed_{base,end}_{1,2}.csv`: the
forty-seventh session's, `docs/results/speed_47`)."""

from __future__ import annotations

import csv
import statistics
import sys
from pathlib import Path

HERE = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/results/prefix_46")
Case = tuple[str, str, str, int]
RUNS = ("base_1", "end_1", "base_2", "end_2")


def load(name: str) -> dict[Case, float]:
    with (HERE / f"simspeed_{name}.csv").open() as handle:
        return {
            (r["arch"], r["algo"], r["pass"], int(r["seqlen"])): float(r["fast_median_s"])
            for r in csv.DictReader(handle)
            if r["fast_median_s"]
        }


def main() -> None:
    runs = {name: load(name) for name in RUNS}
    for name, times in runs.items():
        ratios = [times[(a, al, p, 131072)] / times[(a, al, p, 1024)] for (a, al, p, n) in times if n == 131072]
        print(
            f"{name}: {sum(t <= 0.05 for t in times.values())} of {len(times)} at or under 50 ms, median "
            f"{statistics.median(times.values()):.4f} s, slowest {max(times.values()):.3f} s; 128k over 1k median "
            f"{statistics.median(ratios):.2f}x, {sum(r <= 2 for r in ratios)} of {len(ratios)} within 2x"
        )
    print("cases moved by more than a fifth (mean of the two rounds' ratios): base ms -> end ms (round ratios)")
    base = {k: (runs["base_1"][k] + runs["base_2"][k]) / 2 for k in runs["base_1"]}
    end = {k: (runs["end_1"][k] + runs["end_2"][k]) / 2 for k in runs["end_1"]}
    ratio = {k: (runs["end_1"][k] / runs["base_1"][k] + runs["end_2"][k] / runs["base_2"][k]) / 2 for k in end}
    for case in sorted(end, key=lambda k: -ratio[k]):
        if abs(ratio[case] - 1) > 0.2:
            rounds = " ".join(f"{runs[f'end_{r}'][case] / runs[f'base_{r}'][case]:.2f}" for r in (1, 2))
            print(f"{' '.join(map(str, case))}: {1000 * base[case]:.1f} -> {1000 * end[case]:.1f} ({rounds})")


if __name__ == "__main__":
    main()
