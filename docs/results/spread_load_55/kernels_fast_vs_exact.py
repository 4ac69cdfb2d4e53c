"""Fast mode against exact mode at the kernels' validation configurations (standard, v1, v2 forward and backward),
per chip, algorithm and pass: before this session (the fifty-fourth session's fast-mode CSVs) and after (this folder's
`val_*`), over exact mode's predictions (`docs/results/slot_misses_54/val_*_exact`, exact mode unchanged since). The
configurations whose "exact" prediction fell back to fast mode (its `mode` column: the event budget) are left out,
as a comparison of fast mode with itself (v1 at 1 x 32 x 16k, d = 64, on each chip; the fifty-fourth session's
script counted them). `python docs/results/spread_load_55/kernels_fast_vs_exact.py > kernels_fast_vs_exact.txt`"""

from __future__ import annotations

import csv
import statistics
from pathlib import Path

HERE = Path(__file__).resolve().parent
BEFORE = HERE.parent / "slot_misses_54"
Key = tuple[str, ...]


def predictions(path: Path) -> dict[Key, tuple[float, str]]:
    with path.open(newline="") as handle:
        return {
            (row["algo"], row["pass"], row["batch"], row["heads"], row["seqlen"], row["headdim"], row["causal"]): (
                float(row["predicted_ms"]),
                row["mode"],
            )
            for row in csv.DictReader(handle)
        }


def main() -> None:
    for chip in ("h100", "h200"):
        exact = predictions(BEFORE / f"val_{chip}_exact/validation.csv")
        kept = {key: ms for key, (ms, mode) in exact.items() if mode == "exact"}
        left = sorted(" ".join(key) for key in exact if key not in kept)
        print(f"{chip}: {len(left)} left out (exact mode fell back to fast): {', '.join(left)}")
        for label, path in (
            ("before", BEFORE / f"val_{chip}/validation.csv"),
            ("after", HERE / f"val_{chip}/validation.csv"),
        ):
            fast = predictions(path)
            for group in sorted({key[:2] for key in kept}):
                errors = [fast[key][0] / kept[key] - 1 for key in kept if key[:2] == group]
                print(
                    f"{chip} {label:6s} {' '.join(group):12s} {len(errors)} configurations: mean |error| "
                    f"{100 * statistics.mean(abs(e) for e in errors):5.2f}%, within 1% "
                    f"{sum(abs(e) < 0.01 for e in errors):2d}, worst {100 * max(errors, key=abs):+6.1f}%"
                )


if __name__ == "__main__":
    main()
