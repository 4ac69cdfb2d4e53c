"""A/B of exact mode's speed between two checkouts (say a `git worktree` of the base commit and this one): runs
`benchmarks.exact_speed` in each folder in turn, `--rounds` times, appending to one CSV, then summarizes it.

On a machine shared with other jobs a run's CPU time still grows with their load (shared caches and cores), so
the rounds alternate and the summary gives each case's minimum and median CPU seconds per label, and the exact
ops per CPU second (`benchmarks.simspeed`'s `exact_ops_per_s`: the four engine cases' ops over their seconds).

`python -m benchmarks.exact_ab --a base=DIR --b new=DIR [--rounds 3] --out FILE.csv` (summary: FILE.txt);
`python -m benchmarks.exact_ab --summary FILE.csv` summarizes a CSV already written.
"""

from __future__ import annotations

import csv
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from benchmarks import _ab


def summary(path: Path) -> str:
    with path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    cpu: dict[tuple[str, str], list[float]] = defaultdict(list)
    engine: dict[str, list[tuple[float, float]]] = defaultdict(list)  # label -> (ops, cpu seconds) per engine run
    for row in rows:
        cpu[(row["label"], row["case"])].append(float(row["cpu_s"]))
        if row["ops"]:
            engine[row["label"]].append((float(row["ops"]), float(row["cpu_s"])))
    lines = [f"{'label':8} {'runs':>4} {'min cpu s':>10} {'median':>8}  case"]
    for (label, case), seconds in sorted(cpu.items(), key=lambda item: (item[0][1], item[0][0])):
        lines.append(f"{label:8} {len(seconds):4d} {min(seconds):10.2f} {statistics.median(seconds):8.2f}  {case}")
    lines.append("")
    for label, runs in engine.items():
        rates = [ops / seconds for ops, seconds in runs]
        total = sum(ops for ops, _ in runs) / sum(seconds for _, seconds in runs)
        lines.append(
            f"{label}: exact ops per CPU second over the engine cases {total:,.0f} (all runs pooled); "
            f"per run median {statistics.median(rates):,.0f}, best {max(rates):,.0f}"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parsed = _ab.parse(__doc__, 3, argv, summary)
    if parsed is None:
        return
    args, versions = parsed
    out = str(args.out.resolve())
    for _ in range(args.rounds):
        for label, folder in versions:
            command = [sys.executable, "-m", "benchmarks.exact_speed", "--label", label, "--out", out]
            subprocess.run(command, cwd=folder, check=True)
    text = summary(args.out)
    args.out.with_suffix(".txt").write_text(text, encoding="utf-8")
    print(text, end="")


if __name__ == "__main__":
    main()
