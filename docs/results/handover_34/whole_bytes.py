"""The largest departures of fast mode's HBM bytes (read + write) from exact mode's in the whole-chip grid, before and
after the hand-over (`fast_vs_exact_whole_before.csv`, `fast_vs_exact_whole.csv`). Run from the repository root:
`python docs/results/handover_34/whole_bytes.py > docs/results/handover_34/whole_bytes.txt`.
"""

from __future__ import annotations

import csv
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHAPE = ("arch", "algo", "pass", "batch", "heads", "seqlen_q", "headdim")

for name in ("fast_vs_exact_whole_before.csv", "fast_vs_exact_whole.csv"):
    with (HERE / name).open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    rows.sort(key=lambda row: -abs(float(row["hbm_bytes_fast_over_exact"]) - 1))
    print(f"{name}: HBM bytes fast over exact, the three furthest:")
    for row in rows[:3]:
        print(f"  {' '.join(row[field] for field in SHAPE)}: {float(row['hbm_bytes_fast_over_exact']):.4f}")
