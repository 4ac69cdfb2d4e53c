"""Fast mode's predictions of the H200 validation's 96 v3 configurations against exact mode's
(`python docs/results/session_67/v3_fast_vs_exact.py EXACT.csv FAST.csv`): within 1% / 2.5%, the largest departure."""

from __future__ import annotations

import csv
import sys


def load(path: str) -> dict[tuple[str, ...], float]:
    with open(path, newline="") as handle:
        keys = ("batch", "heads", "seqlen", "headdim", "causal", "options")
        return {tuple(r[k] for k in keys): float(r["predicted_ms"]) for r in csv.DictReader(handle)}


def main(exact_path: str, fast_path: str) -> None:
    exact, fast = load(exact_path), load(fast_path)
    off = sorted((abs(fast[k] / exact[k] - 1), k) for k in exact)
    within = [sum(o <= bound for o, _ in off) for bound in (0.01, 0.025)]
    print(
        f"{len(off)} configurations: within 1% {within[0]}, 2.5% {within[1]}; at most {off[-1][0]:.2%} ({off[-1][1]})"
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
