"""Fewer further rounds (MAX_ROUNDS 2 and 3 against 4) next to main, from the committed CSVs: the fast-vs-exact grids
(cycles within 1 / 2.5 / 5%, mean and largest error, the cases that moved) and the H200 validation's v3
configurations in fast mode against exact mode, by switch and head dimension. Run from the repository root:
`python docs/results/rounds_48/compare.py > docs/results/rounds_48/compare.txt`."""

from __future__ import annotations

import csv
import statistics
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent
GRID_KEY = ("arch", "algo", "pass", "causal", "sms", "batch", "heads", "seqlen_q", "headdim")
VALIDATION_KEY = ("batch", "heads", "seqlen", "headdim", "causal", "options")


def rows(path: Path, key: tuple[str, ...]) -> dict[tuple[str, ...], dict[str, str]]:
    with path.open(newline="") as file:
        return {tuple(row[k] for k in key): row for row in csv.DictReader(file)}


def grid(name: str, base: Path, others: dict[str, Path]) -> None:
    before = rows(base, GRID_KEY)
    for label, path in {"main": base, **others}.items():
        after = rows(path, GRID_KEY)
        errors = [abs(float(row["fast_over_exact"]) - 1) for row in after.values()]
        counts = " / ".join(str(sum(e <= bound for e in errors)) for bound in (0.01, 0.025, 0.05))
        print(
            f"{name} {label}: {len(errors)} cases, within 1 / 2.5 / 5%: {counts},"
            f" mean {100 * statistics.mean(errors):.3f}%, largest {100 * max(errors):.2f}%"
        )
        if label == "main":
            continue
        moved = [
            (key, float(before[key]["fast_over_exact"]), float(row["fast_over_exact"]))
            for key, row in after.items()
            if row["fast_over_exact"] != before[key]["fast_over_exact"]
        ]
        moved.sort(key=lambda each: -abs(abs(each[2] - 1) - abs(each[1] - 1)))
        print(f"  {len(moved)} moved; the largest moves in error:")
        for key, old, new in moved[:6]:
            print(f"    {' '.join(key)}: {old:.4f} -> {new:.4f}")


def validation_groups(exact: Path, fast: Path) -> dict[tuple[str, str, str], list[float]]:
    """Fast over exact predicted time per configuration, grouped by ping-pong, overlap and head dimension."""
    exact_rows, fast_rows = rows(exact, VALIDATION_KEY), rows(fast, VALIDATION_KEY)
    groups: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for key, row in exact_rows.items():
        options = key[5]
        group = (
            "ping-pong" if "pingpong=True" in options else "no ping-pong",
            "overlap" if "intra_wg_overlap=True" in options else "no overlap",
            f"d={key[3]}",
        )
        groups[group].append(float(fast_rows[key]["predicted_ms"]) / float(row["predicted_ms"]) - 1)
    return groups


def validation(label: str, fast: Path) -> None:
    groups = validation_groups(HERE / "validate_v3_exact.csv", fast)
    every = [x for group in groups.values() for x in group]
    print(
        f"v3 validation configurations, fast ({label}) against exact:"
        f" mean |diff| {statistics.mean(map(abs, every)):.2%}, within 1%: {sum(abs(x) <= 0.01 for x in every)}"
        f" of {len(every)}, largest {max(map(abs, every)):.2%}"
    )
    print(f"  mean {statistics.mean(every):+.2%}")
    for group, diffs in sorted(groups.items()):
        print(f"  {', '.join(group)}: mean {statistics.mean(diffs):+.2%}, largest |diff| {max(map(abs, diffs)):.2%}")


def configurations(fast: Path) -> None:
    """Every v3 configuration's fast over exact predicted time, by switches, head dimension and sequence length."""
    exact_rows, fast_rows = rows(HERE / "validate_v3_exact.csv", VALIDATION_KEY), rows(fast, VALIDATION_KEY)
    ordered = sorted(exact_rows, key=lambda key: (key[5], int(key[3]), key[4], int(key[2])))
    for key in ordered:
        diff = float(fast_rows[key]["predicted_ms"]) / float(exact_rows[key]["predicted_ms"]) - 1
        print(f"  {key[0]} x {key[1]} x {key[2]}, d={key[3]}, causal={key[4]}, {key[5]}: {diff:+.2%}")


def main() -> None:
    grid("grid", RESULTS / "fast_vs_exact.csv", {"rounds 2": HERE / "grid_r2.csv", "rounds 3": HERE / "grid_r3.csv"})
    grid(
        "causal",
        RESULTS / "fast_vs_exact_causal.csv",
        {"rounds 2": HERE / "causal_r2.csv", "rounds 3": HERE / "causal_r3.csv"},
    )
    whole = RESULTS / "rounds_47" / "ops_bound" / "whole" / "fast_vs_exact_whole.csv"
    grid("whole", whole, {"rounds 2": HERE / "whole_r2.csv"})
    validation("main", HERE / "validate_v3_fast_base.csv")
    validation("rounds 2", HERE / "validate_v3_fast_r2.csv")
    print("v3 validation configurations, fast (main) over exact:")
    configurations(HERE / "validate_v3_fast_base.csv")


if __name__ == "__main__":
    main()
