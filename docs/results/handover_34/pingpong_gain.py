"""The measured ping-pong gain of our FA3 kernel in a `cupy_kernels.v3.selfcheck` CSV: per (sequence length, head
dimension, causal) with the intra-warpgroup overlap on, time without ping-pong over time with it, less one; the
mean per head dimension and over all, as `docs/results/checks_2026-12-02c.py` takes it from a validation. Given two
CSVs (the same sweep measured twice) it prints both and the pairs' differences, to show how far the measured gain
moves from one run to the next. Run from the repository root:
`python docs/results/handover_34/pingpong_gain.py CSV [CSV2]`.
"""

from __future__ import annotations

import csv
import statistics
import sys
from pathlib import Path


def gains(path: Path) -> dict[tuple[int, int, bool], float]:
    """Per (seqlen, headdim, causal): time(pingpong off) / time(pingpong on) - 1, overlap on."""
    times: dict[tuple[int, int, bool, bool], float] = {}
    with path.open(newline="") as handle:
        for row in csv.DictReader(handle):
            if row["kernel"] != "v3" or row["intra_wg_overlap"] != "True":
                continue
            key = (int(row["seqlen"]), int(row["headdim"]), row["causal"] == "True", row["pingpong"] == "True")
            times[key] = float(row["time_ms_median"])
    return {key[:3]: times[(*key[:3], False)] / on - 1 for key, on in times.items() if key[3]}


def summary(by_shape: dict[tuple[int, int, bool], float]) -> str:
    parts = []
    for d in (64, 128, None):
        values = [gain for (_, headdim, _), gain in by_shape.items() if d is None or headdim == d]
        parts.append(f"{'all' if d is None else f'd={d}'} {100 * statistics.mean(values):+.1f}% ({len(values)})")
    return ", ".join(parts)


def main() -> None:
    runs = [gains(Path(name)) for name in sys.argv[1:]]
    for name, run in zip(sys.argv[1:], runs, strict=True):
        print(f"{name}: ping-pong gain, overlap on: {summary(run)}")
    if len(runs) == 2:
        moved = [100 * (runs[1][key] - runs[0][key]) for key in runs[0]]
        print(f"per shape, second run less first: {min(moved):+.1f} to {max(moved):+.1f} points")


if __name__ == "__main__":
    main()
