"""Whether this session's fast mode answers the random problems of seed 0 as the fifty-seventh session's did: every
column of `random0/fast_random.csv.gz` (`python -m benchmarks.fast_random --cases 3000 --seed 0 -j 2 --out
docs/results/twins_58/random0`, then gzip) against `docs/results/fast_random.csv`, but the wall times.
`python docs/results/twins_58/random0/compare.py > docs/results/twins_58/random0/compare.txt`; a later session's run:
`python docs/results/twins_58/random0/compare.py ITS/fast_random.csv.gz`."""

from __future__ import annotations

import csv
import gzip
import sys
from pathlib import Path

HERE = Path(__file__).parent
TIMES = ("fast_s", "exact_s")


def main(argv: list[str]) -> None:
    with (HERE.parent.parent / "fast_random.csv").open(encoding="utf-8") as before_file:
        before = list(csv.DictReader(before_file))
    with gzip.open(Path(argv[0]) if argv else HERE / "fast_random.csv.gz", "rt", encoding="utf-8") as after_file:
        after = list(csv.DictReader(after_file))
    columns = [name for name in before[0] if name not in TIMES]
    differing = [n for n, (b, a) in enumerate(zip(before, after, strict=True)) if any(b[c] != a[c] for c in columns)]
    print(f"{len(after)} rows, {len(differing)} differing in any column but the wall times")


if __name__ == "__main__":
    main(sys.argv[1:])
