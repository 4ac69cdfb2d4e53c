"""Summary of the fa2_sweep outputs in this folder: per arch, algorithm and pass, how many shapes fast mode puts within
1% of exact mode in cycles, the range of fast over exact, and the shapes whose HBM bytes differ by more than 0.1%.
`python docs/results/looked_at_48/fa2_sweep/summary.py > docs/results/looked_at_48/fa2_sweep/summary.txt`."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

LINE = re.compile(r"(\S+) (\S+) (\S+) N=(\d+) d=(\d+): cycles ([\d.]+), HBM reads ([\d.]+), writes ([\d.]+)")


def main() -> None:
    groups: dict[tuple[str, str, str], list[tuple[str, float, float, float]]] = defaultdict(list)
    for path in sorted(Path(__file__).parent.glob("*.txt")):
        for match in LINE.finditer(path.read_text()):
            arch, algo, pass_, seqlen, headdim, cycles, reads, writes = match.groups()
            shape = f"N={seqlen} d={headdim}"
            groups[arch, algo, pass_].append((shape, float(cycles), float(reads), float(writes)))
    for (arch, algo, pass_), rows in sorted(groups.items()):
        cycles = [row[1] for row in rows]
        within = sum(abs(c - 1) <= 0.01 for c in cycles)
        off = [f"{s} ({r:.3f}, {w:.3f})" for s, _, r, w in rows if abs(r - 1) > 0.001 or abs(w - 1) > 0.001]
        print(
            f"{arch} {algo} {pass_}: cycles within 1% in {within} of {len(rows)}, {min(cycles):.3f}-{max(cycles):.3f};"
            f" bytes off (reads, writes): {', '.join(off) or 'none'}"
        )


if __name__ == "__main__":
    main()
