"""The before-and-after counts this session's READMEs quote, from the committed CSVs: for each pair of fast-vs-exact
grid, whole-chip or random-problem runs, the cases within 1%, 2.5% and 5% of exact mode, the mean and largest error,
and how many cases moved (nearer exact mode or further). Run from the repository root:
`python docs/results/rounds_47/compare_runs.py > docs/results/rounds_47/compare_runs.txt`."""

from __future__ import annotations

import csv
from pathlib import Path

R = Path("docs/results")
GRID_KEY = ("arch", "algo", "pass", "causal", "sms", "batch", "heads", "seqlen_q", "headdim")
RANDOM_KEY = ("arch", "algo", "batch", "heads", "seqlen_q", "seqlen_k", "headdim", "causal", "dtype", "pass_")
RANDOM_KEY += ("options", "sms", "l2_bytes")
PAIRS = (
    ("grid, six rounds", R / "rounds_47/grid_before.csv", R / "rounds_47/cap6/fast_vs_exact.csv", GRID_KEY),
    ("grid, ops bound", R / "rounds_47/grid_before.csv", R / "rounds_47/ops_bound/fast_vs_exact.csv", GRID_KEY),
    (
        "whole chips, six rounds",
        R / "h100_memory_45/whole/fast_vs_exact_whole.csv",
        R / "rounds_47/cap6/whole/fast_vs_exact_whole.csv",
        GRID_KEY,
    ),
    (
        "whole chips, ops bound",
        R / "h100_memory_45/whole/fast_vs_exact_whole.csv",
        R / "rounds_47/ops_bound/whole/fast_vs_exact_whole.csv",
        GRID_KEY,
    ),
    (
        "random, ops bound",
        R / "rounds_47/random_before.csv",
        R / "rounds_47/ops_bound/random/fast_random.csv",
        RANDOM_KEY,
    ),
    (
        "grid, first CTA's lead",
        R / "rounds_47/ops_bound/fast_vs_exact.csv",
        R / "looked_at_47/first_cta_lead/grid.csv",
        GRID_KEY,
    ),
    (
        "random, first CTA's lead",
        R / "rounds_47/ops_bound/random/fast_random.csv",
        R / "looked_at_47/first_cta_lead/random.csv",
        RANDOM_KEY,
    ),
)


def ratios(path: Path, key: tuple[str, ...]) -> dict[tuple[str, ...], float]:
    """Fast over exact cycles per case, keyed by the case and its row (two random draws can be the same case)."""
    with path.open() as handle:
        rows = [(n, row) for n, row in enumerate(csv.DictReader(handle)) if row.get("status", "ok") == "ok"]
    column = "fast_over_exact" if "fast_over_exact" in rows[0][1] else "cycles_fast_over_exact"
    return {(*(row[k] for k in key), str(n)): float(row[column]) for n, row in rows}


def summary(values: dict[tuple[str, ...], float]) -> str:
    errors = [abs(v - 1) for v in values.values()]
    within = " / ".join(str(sum(e <= bound for e in errors)) for bound in (0.01, 0.025, 0.05))
    mean = sum(errors) / len(errors)
    return f"{len(errors)} cases, within 1 / 2.5 / 5%: {within}, mean {mean:.2%}, max {max(errors):.2%}"


def main() -> None:
    for name, before_path, after_path, key in PAIRS:
        before, after = ratios(before_path, key), ratios(after_path, key)
        moved = [k for k in before if abs(after[k] - before[k]) > 1e-9]
        nearer = sum(abs(after[k] - 1) < abs(before[k] - 1) for k in moved)
        largest = max((abs(after[k] - before[k]) for k in moved), default=0.0)
        print(f"{name}:\n  before: {summary(before)}\n  after:  {summary(after)}")
        print(f"  moved: {len(moved)} ({nearer} nearer exact mode), by at most {largest:.4f}")
        for algo in sorted({k[1] for k in moved}):
            print(f"    {algo}: {sum(k[1] == algo for k in moved)}")


if __name__ == "__main__":
    main()
