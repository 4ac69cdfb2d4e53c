"""Fast mode against exact mode at the H200 validation's 96 v3 configurations: the two `simgpu validate` CSVs'
predicted times, case by case (within 1%, mean and largest departure), now and before the TMA box latency.
`python docs/results/tma_box_50/v3_fast_vs_exact.py > docs/results/tma_box_50/v3_fast_vs_exact.txt`; with
`EXACT.csv FAST.csv` arguments, that pair alone."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

FOLDER = Path(__file__).resolve().parents[3] / "validation" / "h200" / "validation_2026-12-06"


def agreement(exact_path: Path, fast_path: Path) -> str:
    """The pair's count of configurations, those within 1%, and the mean and largest departure."""
    with exact_path.open(newline="") as handle:
        exact = list(csv.DictReader(handle))
    with fast_path.open(newline="") as handle:
        fast = list(csv.DictReader(handle))
    gaps = [abs(float(f["predicted_ms"]) / float(e["predicted_ms"]) - 1) for e, f in zip(exact, fast, strict=True)]
    return (
        f"{len(gaps)} configurations, fast within 1% of exact in {sum(gap <= 0.01 for gap in gaps)},"
        f" mean {100 * sum(gaps) / len(gaps):.2f}%, largest {100 * max(gaps):.1f}%"
    )


def main(argv: list[str]) -> None:
    if argv:
        print(agreement(Path(argv[0]), Path(argv[1])))
        return
    for label, tag in (("now", ""), ("before", "_before")):
        print(f"{label}: {agreement(FOLDER / f'v3_exact{tag}.csv', FOLDER / f'v3_fast{tag}.csv')}")


if __name__ == "__main__":
    main(sys.argv[1:])
