"""The chip's side: period per key tile and consumer 1's offset after consumer 0 (medians over key tiles 4-63) of our
FA3 kernel's traced CTA, by build and start delay, from `validation/h200/v3_offset_trace/v3_offset_trace_h200.csv`
(thirty-third session; N = 8192, B = 2, H = 2048 / d; the stamps slow the kernel: compare with the untraced
`validation/h200/v3_phase_offset_console.txt`). Run from the repository root:
`python docs/results/basins_36/chip_offsets.py > docs/results/basins_36/chip_offsets.txt`.
"""

from __future__ import annotations

import csv
import itertools
import statistics
from collections import defaultdict
from pathlib import Path

TRACE = Path(__file__).resolve().parents[3] / "validation" / "h200" / "v3_offset_trace" / "v3_offset_trace_h200.csv"
SETTLED = 4  # key tiles left out at the start


def main() -> None:
    issued: defaultdict[tuple[int, str, str, int], dict[tuple[int, int], float]] = defaultdict(dict)
    with TRACE.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            key = (int(row["headdim"]), row["pingpong"], row["intra_wg_overlap"], int(row["delay"]))
            issued[key][int(row["consumer"]), int(row["tile"])] = float(row["issued"])
    for (d, pingpong, overlap, delay), stamps in sorted(issued.items()):
        tiles = sorted(t for c, t in stamps if c == 0 and t >= SETTLED and (1, t) in stamps)
        zero = [stamps[0, t] for t in tiles]
        period = statistics.median(b - a for a, b in itertools.pairwise(zero))
        offset = statistics.median(stamps[1, t] - stamps[0, t] for t in tiles)
        print(
            f"d={d} pingpong={pingpong} overlap={overlap} delay {delay:5d}: period {period:5.0f}, offset {offset:5.0f}"
        )


if __name__ == "__main__":
    main()
