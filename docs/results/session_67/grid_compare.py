"""A fast-vs-exact grid's CSV against another (the candidate's against main's committed one): per CSV the cases within
1%, 2.5% and 5% of exact mode's cycles, the largest departure, the bytes equal; then each case whose fast/exact ratio
moved by more than 0.5 points (`python docs/results/session_66/grid_compare.py BASE.csv CANDIDATE.csv`)."""

from __future__ import annotations

import csv
import sys


def load(path: str) -> list[dict[str, str]]:
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def summary(rows: list[dict[str, str]]) -> str:
    off = [abs(float(row["fast_over_exact"]) - 1) for row in rows]
    equal = sum(row["bytes_equal"] == "True" for row in rows)
    within = [sum(o <= bound for o in off) for bound in (0.01, 0.025, 0.05)]
    counts = f"within 1% {within[0]}, 2.5% {within[1]}, 5% {within[2]}"
    return f"{len(rows)} cases: {counts}, at most {max(off):.2%}; bytes equal {equal}"


def key(row: dict[str, str]) -> tuple[str, ...]:
    return tuple(row[name] for name in ("arch", "algo", "pass", "causal", "batch", "heads", "seqlen_q", "headdim"))


def main(base_path: str, new_path: str) -> None:
    base, new = load(base_path), load(new_path)
    print(f"base:      {summary(base)}")
    print(f"candidate: {summary(new)}")
    before = {key(row): float(row["fast_over_exact"]) for row in base}
    for row in new:
        ratio, was = float(row["fast_over_exact"]), before.get(key(row))
        if was is None or abs(ratio - was) > 0.005:
            print(f"  {' '.join(key(row))}: {was} -> {ratio:.4f}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
