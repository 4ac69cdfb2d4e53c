"""Seed 0's random problems (`python -m benchmarks.fast_random --cases 3000 --seed 0 -j 2`, gzipped here) with the
first head standing for heads alike at 4, 16 and 32 lines (`ALIKE_LINES`) against the base: per variant the cases
whose fast/exact cycles or largest byte difference moved, how many came nearer exact mode, and each case whose byte
difference moved. From the repository root: `python docs/results/alike_heads_61/random/compare.py >
docs/results/alike_heads_61/random/compare.txt`.
"""

from __future__ import annotations

import csv
import gzip
from pathlib import Path

HERE = Path(__file__).parent
SHOWN = ("arch", "algo", "batch", "heads", "seqlen_q", "seqlen_k", "headdim", "causal", "pass_", "options", "sms")


def load(name: str) -> list[dict[str, str]]:
    with gzip.open(HERE / f"{name}.csv.gz", "rt", encoding="utf-8") as file:
        return list(csv.DictReader(file))


def main() -> None:
    base = load("base")
    for variant in ("lines4", "lines16", "lines32"):
        rows = load(variant)
        moved = nearer = 0
        shown = []
        for before, after in zip(base, rows, strict=True):
            if before["status"] != "ok":
                continue
            cycles = float(before["cycles_fast_over_exact"]), float(after["cycles_fast_over_exact"])
            nbytes = float(before["bytes_max_rel_difference"]), float(after["bytes_max_rel_difference"])
            if cycles[0] != cycles[1]:
                moved += 1
                nearer += abs(cycles[1] - 1) < abs(cycles[0] - 1)
            if nbytes[0] != nbytes[1]:
                case = " ".join(before[k] for k in SHOWN) + f" L2 {before['l2_bytes'] or 'whole'}"
                shown.append(f"  {case}: bytes {nbytes[0]:.4f} -> {nbytes[1]:.4f}")
        print(f"{variant}: cycles moved in {moved} cases, {nearer} nearer exact mode; bytes moved in {len(shown)}")
        print("\n".join(shown))


if __name__ == "__main__":
    main()
