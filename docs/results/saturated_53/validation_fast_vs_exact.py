"""Fast mode against exact mode at the validation's v1 configurations (our kernel's loop, `variant="algorithm1"`), each
at its run's counted clock: before the fifty-third session (the committed fast-mode validation CSVs) and after (this
folder's), against exact mode's predictions (`v1_exact_*.csv`: `simgpu validate --measured ... --algos v1`).
`python docs/results/saturated_53/validation_fast_vs_exact.py > validation_fast_vs_exact.txt` (in this folder)"""

from __future__ import annotations

import csv
import statistics
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
RUNS = (
    (
        "h100",
        HERE / "v1_exact_h100.csv",
        ROOT / "validation/h200/kernels_on_h100/validation_shared_period_fast/validation.csv",
        ROOT / "validation/h200/kernels_on_h100/validation_saturated_fast/validation.csv",
    ),
    (
        "h200",
        HERE / "v1_exact_h200.csv",
        ROOT / "validation/h200/validation_2026-12-06b/kernels_fast.csv",
        ROOT / "validation/h200/validation_2026-12-06c/kernels_fast.csv",
    ),
)
Key = tuple[str, ...]


def predictions(path: Path) -> dict[Key, float]:
    with path.open(newline="") as handle:
        return {
            (row["batch"], row["heads"], row["seqlen"], row["headdim"], row["causal"]): float(row["predicted_ms"])
            for row in csv.DictReader(handle)
            if row["algo"] == "v1"
        }


def main() -> None:
    for chip, exact_path, *fast_paths in RUNS:
        exact = predictions(exact_path)
        for label, path in zip(("before", "after"), fast_paths, strict=True):
            fast = predictions(path)
            errors = {key: fast[key] / exact[key] - 1 for key in exact}
            worst = max(errors, key=lambda key: abs(errors[key]))
            print(
                f"{chip} {label}: {len(errors)} configurations, fast over exact mean |error| "
                f"{100 * statistics.mean(abs(e) for e in errors.values()):.2f}%, within 1% "
                f"{sum(abs(e) < 0.01 for e in errors.values())}, within 2.5% "
                f"{sum(abs(e) < 0.025 for e in errors.values())}, worst {100 * errors[worst]:+.1f}% "
                f"(batch, heads, N, d, causal = {', '.join(worst)})"
            )


if __name__ == "__main__":
    main()
