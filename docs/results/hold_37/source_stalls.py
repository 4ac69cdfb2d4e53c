"""Where the softmax pair's extra time sits, per SASS instruction: Nsight Compute's source pages of
`softmax_group<1>` (one softmax warpgroup on the SM) and `softmax_group<2>` (two), from
`validation/probes/softmax_pair_source.sh`.

For each kernel: its stall samples per reason summed over the loop, and the instructions with the most samples of
the reasons the pair adds (mio, not_selected, math, short scoreboard, ...), each with its opcode and its share of
its kernel's samples alone and in the pair (shares, so that the two kernels' different sample counts compare).

`python docs/results/hold_37/source_stalls.py DIR` (DIR holds group1_source.csv and group2_source.csv).
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

REASONS = ("mio", "not_selected", "math", "short_sb", "wait", "dispatch", "selected", "long_sb", "no_inst")


def read(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        lines = handle.read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"Address"'))
    return list(csv.DictReader(lines[start:]))


def samples(row: dict[str, str], reason: str) -> float:
    return float(row.get(f"stall_{reason}", "0") or 0)


def all_samples(row: dict[str, str]) -> float:
    return float(row["Warp Stall Sampling (All Samples)"] or 0)


def main(folder: Path) -> None:
    kernels = {name: read(folder / f"{name}_source.csv") for name in ("group1", "group2")}
    totals = {name: sum(all_samples(r) for r in rows) for name, rows in kernels.items()}
    for name, rows in kernels.items():
        executed = sum(float(r["Instructions Executed"] or 0) for r in rows)
        total = {reason: sum(samples(r, reason) for r in rows) for reason in REASONS}
        print(f"{name}: {len(rows)} instructions, {executed:.0f} executed, {totals[name]:.0f} samples; by reason:")
        print("  " + ", ".join(f"{reason} {value:.0f}" for reason, value in total.items() if value))
    one, two = kernels["group1"], kernels["group2"]
    if len(one) != len(two):
        print("the two kernels' SASS differ in length: no per-instruction comparison")
        return
    print("\nper instruction, share of each kernel's samples (pair minus alone, largest 30):")
    rows = []
    for a, b in zip(one, two, strict=True):
        share_a = all_samples(a) / totals["group1"]
        share_b = all_samples(b) / totals["group2"]
        reasons = {reason: samples(b, reason) for reason in REASONS}
        top = sorted(reasons.items(), key=lambda kv: -kv[1])[:3]
        rows.append((share_b - share_a, b["Address"][-5:], b["Source"].strip()[:48], share_a, share_b, top))
    for diff, address, source, share_a, share_b, top in sorted(rows, key=lambda r: -abs(r[0]))[:30]:
        tops = ", ".join(f"{reason} {value:.0f}" for reason, value in top if value)
        print(f"  {address} {source:48} alone {share_a:6.2%} pair {share_b:6.2%} ({diff:+6.2%})  pair's: {tops}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
