"""A/B of fast mode's CPU time per prediction of standard attention between two checkouts: `benchmarks.fast_ab`'s
workers and alternation (ABBA, case by case; each answer a warm-up and then the least CPU time of `--repeats`),
on its standard cases only (four chips, forward and backward, 1k and 16k tokens). `benchmarks.fast_ab` itself also
times v1 to v4 at 128k (seconds a case on two shared cores) and its summary needs those.

`python docs/results/speed_40_std/ab_std.py --a base=DIR --b new=DIR [--rounds 3] --out FILE.csv` (summary: FILE.txt)
"""

from __future__ import annotations

import csv
import statistics
from collections import defaultdict
from pathlib import Path

from benchmarks import _ab
from benchmarks.fast_ab import cases, write_rounds


def summary(path: Path) -> str:
    """Per case the median CPU s over rounds of each label and their ratio (last / first); per label the median."""
    with path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    cpu: dict[str, dict[tuple[str, ...], list[float]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        cpu[row["label"]][(row["arch"], row["pass"], row["seqlen"])].append(float(row["cpu_s"]))
    labels = list(cpu)
    medians = {label: {case: statistics.median(s) for case, s in by_case.items()} for label, by_case in cpu.items()}
    lines = ["case".ljust(20) + "".join(f"{label:>10}" for label in labels) + "   ratio"]
    ratios = []
    for case in sorted(medians[labels[0]], key=lambda c: (int(c[2]), c[0], c[1])):
        values = [medians[label][case] for label in labels]
        ratios.append(values[-1] / values[0])
        lines.append(" ".join(case).ljust(20) + "".join(f"{v:10.4f}" for v in values) + f"   {ratios[-1]:.3f}")
    for label in labels:
        lines.append(f"{label}: median {statistics.median(medians[label].values()):.4f} CPU s over the cases")
    lines.append(f"ratio: median {statistics.median(ratios):.3f}, from {min(ratios):.3f} to {max(ratios):.3f}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parsed = _ab.parse(__doc__, 3, argv, summary, repeats=2)
    if parsed is None:
        return
    args, versions = parsed
    write_rounds(args.out, versions, [case for case in cases() if case[1] == "standard"], args.rounds, args.repeats)
    text = summary(args.out)
    args.out.with_suffix(".txt").write_text(text, encoding="utf-8")
    print(text, end="")


if __name__ == "__main__":
    main()
