"""Per arch, the session's simspeed times over the forty-eighth session's end run, case by case (median and range), and
the later end run's over the first in wall and CPU time. Run from the repository root:
`python docs/results/clock_49/speed/compare.py > docs/results/clock_49/speed/compare.txt`."""

from __future__ import annotations

import csv
import statistics
from pathlib import Path

HERE = Path(__file__).resolve().parent
FORTY_EIGHTH = HERE.parents[1] / "speed_48" / "simspeed_end.csv"


def times(path: Path, column: str) -> dict[tuple[str, ...], float]:
    with path.open(newline="") as handle:
        return {
            (row["arch"], row["algo"], row["pass"], row["seqlen"]): float(row[column])
            for row in csv.DictReader(handle)
            if row[column]
        }


def ratios(before: dict[tuple[str, ...], float], after: dict[tuple[str, ...], float], arch: str | None) -> str:
    values = [after[case] / before[case] for case in before if arch is None or case[0] == arch]
    return f"median {statistics.median(values):.3f}, range {min(values):.2f}-{max(values):.2f}, {len(values)} cases"


def main() -> None:
    before, first = times(FORTY_EIGHTH, "fast_median_s"), times(HERE / "simspeed.csv", "fast_median_s")
    for arch in ("a100", "h100", "h200", "b200"):
        print(f"{arch}: this session's first run over the forty-eighth's end run, wall: {ratios(before, first, arch)}")
    for column in ("fast_median_s", "fast_cpu_median_s"):
        later, earlier = times(HERE / "later" / "simspeed.csv", column), times(HERE / "simspeed.csv", column)
        print(f"the later run over the first, {column}: {ratios(earlier, later, None)}")


if __name__ == "__main__":
    main()
