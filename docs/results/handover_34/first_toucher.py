"""Does the CTA that asks first for a head's K and V take longer? Our FA3 forward on the H200, B = 1, H = 16,
N = 1024 (8 query tiles per head, 128 CTAs, one wave, one CTA per SM), bf16, the validation's default variant.

Exact mode: every SM traced; SM s runs CTA s (breadth-first placement), whose query tile is s % 8; its cycles are its
SM's last span's end less its first span's start. The chip: `validation/probes/v3_cta_timeline.py --shared`
(`validation/h200/v3_cta_timeline_shared/`), a CTA's cycles from its entry to its consumers' last epilogue stamp,
its query tile `cta % 8`. Per query tile the median over the heads, and fast mode's kernel time beside them (fast
mode times every tile alike). Run from the repository root:
`python docs/results/handover_34/first_toucher.py > docs/results/handover_34/first_toucher.txt`.
"""

from __future__ import annotations

import csv
import gzip
import statistics
from collections import defaultdict
from pathlib import Path

from sm_spread import sm_spans  # beside this script, whose folder Python puts first on its path

from simgpu import Problem, load_arch, simulate

OPTIONS = {"pingpong": True, "intra_wg_overlap": True, "epilogue": "registers"}
TILES = 8  # query tiles per head: N = 1024 over BLOCK_M = 128
CHIP = Path("validation/h200/v3_cta_timeline_shared/v3_cta_timeline_shared_h200.csv.gz")


def model(d: int) -> tuple[dict[int, float], float, float]:
    """Exact mode's median CTA cycles per query tile and its kernel cycles, and fast mode's kernel cycles."""
    arch = load_arch("h200")
    problem = Problem(1, 16, 1024, d)
    spans, exact = sm_spans(arch, "v3", problem, OPTIONS)
    by_tile: dict[int, list[float]] = defaultdict(list)
    for sm, (start, end) in spans.items():
        by_tile[sm % TILES].append(end - start)
    fast = simulate(arch, "v3", problem, OPTIONS).kernel_cycles[0]
    return {tile: statistics.median(values) for tile, values in sorted(by_tile.items())}, exact, fast


def chip(d: int) -> dict[int, float]:
    """The chip's median CTA cycles per query tile (empty where the rows are not there)."""
    if not CHIP.exists():
        return {}
    by_tile: dict[int, list[float]] = defaultdict(list)
    with gzip.open(CHIP, "rt", newline="") as handle:
        for row in csv.DictReader(handle):
            if int(float(row["headdim"])) == d:
                cycles = max(float(row["epi_c0"]), float(row["epi_c1"]))
                by_tile[int(float(row["cta"])) % TILES].append(cycles)
    return {tile: statistics.median(values) for tile, values in sorted(by_tile.items())}


def main() -> None:
    for d in (64, 128):
        per_tile, exact, fast = model(d)
        measured = chip(d)
        print(
            f"d={d}: kernel cycles exact mode {exact:.0f}, fast mode {fast:.0f} (launch included); "
            "CTA cycles by query tile (median over 16 heads):"
        )
        for tile, cycles in per_tile.items():
            seen = f", chip {measured[tile]:6.0f}" if tile in measured else ""
            print(f"  query tile {tile}: exact mode {cycles:6.0f}{seen}")


if __name__ == "__main__":
    main()
