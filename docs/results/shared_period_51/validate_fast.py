"""Fast mode's time MAPE against our kernels on the H200 and the lent H100, per algorithm and pass, before the
fifty-first session's busy further tiles (the CSVs of `simgpu validate --fast` at 0543d2a) and after (this session's);
each pass also causal and not apart.
`python docs/results/shared_period_51/validate_fast.py > docs/results/shared_period_51/validate_fast.txt`"""

from __future__ import annotations

import csv
import statistics
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
H200, H100 = ROOT / "validation/h200", ROOT / "validation/h200/kernels_on_h100"
RUNS = (
    ("h200", HERE / "before/kernels_fast_h200.csv", H200 / "validation_2026-12-06b/kernels_fast.csv"),
    ("h200", H200 / "validation_2026-12-06/v3_fast.csv", H200 / "validation_2026-12-06b/v3_fast.csv"),
    ("h100", HERE / "before/kernels_fast_h100.csv", H100 / "validation_shared_period_fast/validation.csv"),
    (
        "h100",
        H100 / "validation_tma_box_fast_v3/validation.csv",
        H100 / "validation_shared_period_fast_v3/validation.csv",
    ),
)


def mapes(path: Path) -> dict[tuple[str, str], tuple[int, float]]:
    errors: dict[tuple[str, str], list[float]] = defaultdict(list)
    with path.open(newline="") as handle:
        for row in csv.DictReader(handle):
            errors[row["algo"], row["pass"]].append(abs(float(row["rel_error"])))
            causal = "causal" if row["causal"] == "True" else "not causal"
            errors[row["algo"], f"{row['pass']}, {causal}"].append(abs(float(row["rel_error"])))
    return {key: (len(values), 100 * statistics.mean(values)) for key, values in errors.items()}


def main() -> None:
    print("chip  algo     pass                runs | MAPE before | MAPE after")
    for chip, before_path, after_path in RUNS:
        before, after = mapes(before_path), mapes(after_path)
        for key in sorted(after):
            runs, now = after[key]
            print(f"{chip}  {key[0]:8} {key[1]:18}  {runs:4} | {before[key][1]:10.2f}% | {now:9.2f}%")


if __name__ == "__main__":
    main()
