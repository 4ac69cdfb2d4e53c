"""Fast mode against exact mode at every configuration of the kernels' validation (standard, v1, v2 forward and
backward), per algorithm and pass: before this session's change (the fifty-third session's fast-mode CSVs) and after
(this folder's `val_*` runs), over exact mode's predictions (`val_*_exact`, exact mode unchanged by the change).
Each prediction at its run's counted clock. `python docs/results/slot_misses_54/kernels_fast_vs_exact.py [LABEL=CSV]`
(further fast-mode CSVs to set beside, per chip as `h100:LABEL=CSV`)."""

from __future__ import annotations

import csv
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
EXACT = {"h100": HERE / "val_h100_exact/validation.csv", "h200": HERE / "val_h200_exact/validation.csv"}
FAST = {
    "h100": {
        "before": ROOT / "validation/h200/kernels_on_h100/validation_saturated_fast/validation.csv",
        "after": HERE / "val_h100/validation.csv",
    },
    "h200": {
        "before": ROOT / "validation/h200/validation_2026-12-06c/kernels_fast.csv",
        "after": HERE / "val_h200/validation.csv",
    },
}
Key = tuple[str, ...]


def predictions(path: Path) -> dict[Key, float]:
    with path.open(newline="") as handle:
        return {
            (row["algo"], row["pass"], row["batch"], row["heads"], row["seqlen"], row["headdim"], row["causal"]): float(
                row["predicted_ms"]
            )
            for row in csv.DictReader(handle)
        }


def main() -> None:
    for extra in sys.argv[1:]:
        chip, _, rest = extra.partition(":")
        label, _, path = rest.partition("=")
        FAST[chip][label] = Path(path)
    for chip, exact_path in EXACT.items():
        exact = predictions(exact_path)
        for label, path in FAST[chip].items():
            fast = predictions(path)
            for group in sorted({key[:2] for key in exact}):
                errors = [fast[key] / exact[key] - 1 for key in exact if key[:2] == group]
                print(
                    f"{chip} {label:7s} {' '.join(group):12s} {len(errors)} configurations: mean |error| "
                    f"{100 * statistics.mean(abs(e) for e in errors):5.2f}%, within 1% "
                    f"{sum(abs(e) < 0.01 for e in errors):2d}, worst {100 * max(errors, key=abs):+6.1f}%"
                )


if __name__ == "__main__":
    main()
