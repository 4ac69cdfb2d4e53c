"""Fast against exact mode before (f58f34b's code: `before_*.csv` here, the whole-chip grid in
`docs/results/fast_vs_exact_whole_31/`) and after the thirty-first session's first-copies burst (the results under
`docs/results/`, the whole-chip grid here), from the CSVs: `python docs/results/burst_31/summary.py`; fast_random's
before and after: `before_fast_random.txt` here, `docs/results/fast_random.txt`."""

import csv
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent
PAIRS = (
    ("grid of 88 (cut chips)", RESULTS / "burst_31/before_fast_vs_exact.csv", RESULTS / "fast_vs_exact.csv"),
    (
        "whole chips, not causal (104)",
        RESULTS / "fast_vs_exact_whole_31/fast_vs_exact_whole.csv",
        RESULTS / "burst_31/fast_vs_exact_whole.csv",
    ),
    (
        "whole chips, causal (40)",
        RESULTS / "burst_31/before_fast_vs_exact_causal.csv",
        RESULTS / "fast_vs_exact_causal.csv",
    ),
    ("what-ifs (4)", RESULTS / "burst_31/before_fast_vs_exact_whatif.csv", RESULTS / "fast_vs_exact_whatif.csv"),
)


def summary(path: Path) -> str:
    with path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    errors = [abs(float(row["fast_over_exact"]) - 1) for row in rows]
    within = ", ".join(f"{limit}%: {sum(e <= limit / 100 for e in errors)}" for limit in (1, 2.5, 5))
    equal = sum(row["bytes_equal"] == "True" for row in rows)
    return (
        f"{len(rows)} cases; cycles within {within}; mean {100 * sum(errors) / len(errors):.2f}%, "
        f"at most {100 * max(errors):.2f}%; bytes equal in {equal}"
    )


def ratios(path: Path) -> dict[tuple[str, ...], float]:
    with path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    fields = ("arch", "algo", "pass", "batch", "heads", "seqlen_q", "headdim")
    return {tuple(row[field] for field in fields): float(row["fast_over_exact"]) for row in rows}


def main() -> None:
    for name, before, after in PAIRS:
        print(f"{name}\n  before: {summary(before)}\n  after:  {summary(after)}")
    _, before_path, after_path = PAIRS[1]
    before, after = ratios(before_path), ratios(after_path)
    moved = {case: (abs(after[case] - 1) - abs(before[case] - 1)) for case in before}
    nearer, further = sum(m < -0.01 for m in moved.values()), sum(m > 0.01 for m in moved.values())
    print(f"whole chips, not causal: {nearer} cases nearer exact mode by more than a point, {further} further:")
    for case, change in sorted(moved.items(), key=lambda item: -item[1]):
        if change > 0.01:
            print(f"    {' '.join(case)}: {before[case]:.3f} -> {after[case]:.3f}")


if __name__ == "__main__":
    main()
