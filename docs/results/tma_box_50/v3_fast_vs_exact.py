"""Fast mode against exact mode at the H200 validation's 96 v3 configurations: the two `simgpu validate` CSVs'
predicted times, case by case (within 1%, mean and largest departure), now and before the TMA box latency.
`python docs/results/tma_box_50/v3_fast_vs_exact.py > docs/results/tma_box_50/v3_fast_vs_exact.txt`"""

from __future__ import annotations

import csv
from pathlib import Path

FOLDER = Path(__file__).resolve().parents[3] / "validation" / "h200" / "validation_2026-12-06"


def main() -> None:
    for label, tag in (("now", ""), ("before", "_before")):
        with (FOLDER / f"v3_exact{tag}.csv").open(newline="") as handle:
            exact = list(csv.DictReader(handle))
        with (FOLDER / f"v3_fast{tag}.csv").open(newline="") as handle:
            fast = list(csv.DictReader(handle))
        gaps = [abs(float(f["predicted_ms"]) / float(e["predicted_ms"]) - 1) for e, f in zip(exact, fast, strict=True)]
        print(
            f"{label}: {len(gaps)} configurations, fast within 1% of exact in {sum(gap <= 0.01 for gap in gaps)},"
            f" mean {100 * sum(gaps) / len(gaps):.2f}%, largest {100 * max(gaps):.1f}%"
        )


if __name__ == "__main__":
    main()
