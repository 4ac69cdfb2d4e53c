"""A/B of fast mode's speed between two checkouts (say a `git worktree` of the base commit and this one): each
round runs every case in one fresh process per checkout (a warm-up prediction, then the least CPU time of
`--repeats` more), the checkouts alternating, and appends the rows to one CSV; the summary gives per case and label
the median over rounds, and per label the median over cases, the worst case and the 128k/1k ratio of each
arch x algorithm x pass.

CPU time (`time.process_time`), not wall time: the machine is shared, and the checkouts alternate so that both see
the same load. The cases are `benchmarks.simspeed`'s shapes (16k tokens, 16 heads, d = 128) at 1k and 128k,
standard attention at 1k and 16k (it does not run longer sequences there) and v1 at 1k (seconds per prediction past
it). Only `simulate` is imported from the checkout, so any commit with fast mode can be measured.

`python -m benchmarks.fast_ab --a base=DIR --b new=DIR [--rounds 2] --out FILE.csv` (summary: FILE.txt);
`python -m benchmarks.fast_ab --summary FILE.csv` summarizes a CSV already written.
"""

from __future__ import annotations

import csv
import json
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from benchmarks import _ab

ARCHS = {"a100": ("standard", "v1", "v2"), "h100": ("standard", "v1", "v2", "v3")}
ARCHS |= {"h200": ARCHS["h100"], "b200": ("standard", "v1", "v2", "v4")}
SHORT, LONG, MIDDLE = 1024, 131072, 16384

# Run in the checkout's folder (its `simgpu` first on the path): the cases as JSON on stdin, a JSON row per case out.
WORKER = """
import json, sys, time
from simgpu import Problem, load_arch, simulate
repeats = int(sys.argv[1])
for line in sys.stdin:
    arch, algo, pass_, seqlen = json.loads(line)
    problem = Problem(max(1, 16384 // seqlen), 16, seqlen, 128, pass_=pass_)
    target = load_arch(arch)
    simulate(target, algo, problem)
    seconds = []
    for _ in range(repeats):
        started = time.process_time()
        result = simulate(target, algo, problem)
        seconds.append(time.process_time() - started)
    print(json.dumps([arch, algo, pass_, seqlen, min(seconds), result.cycles, result.hbm_read_bytes]), flush=True)
"""


def cases() -> list[tuple[str, str, str, int]]:
    out = []
    for arch, algos in ARCHS.items():
        for algo in algos:
            for pass_ in ("fwd", "bwd"):
                for seqlen in {"standard": (SHORT, MIDDLE), "v1": (SHORT,)}.get(algo, (SHORT, LONG)):
                    out.append((arch, algo, pass_, seqlen))
    return out


def summary(path: Path) -> str:
    with path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    cpu: dict[str, dict[tuple[str, str, str, int], list[float]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        case = (row["arch"], row["algo"], row["pass"], int(row["seqlen"]))
        cpu[row["label"]][case].append(float(row["cpu_s"]))
    labels = list(cpu)
    lines = ["case".ljust(30) + "".join(f"{label:>10}" for label in labels) + "   ratio (last/first)"]
    medians = {label: {case: statistics.median(s) for case, s in by_case.items()} for label, by_case in cpu.items()}
    for case in sorted(medians[labels[0]], key=lambda c: (c[1], c[0], c[2], c[3])):
        values = [medians[label].get(case, float("nan")) for label in labels]
        lines.append(
            " ".join(map(str, case)).ljust(30)
            + "".join(f"{v:10.3f}" for v in values)
            + f"   {values[-1] / values[0]:.2f}"
        )
    lines.append("")
    for label in labels:
        values = medians[label]
        worst = max(values, key=values.__getitem__)
        ratios = {
            case[:3]: values[case] / values[(*case[:3], SHORT)]
            for case in values
            if case[3] == LONG and (*case[:3], SHORT) in values
        }
        worst_ratio = max(ratios, key=ratios.__getitem__)
        lines.append(
            f"{label}: {len(values)} cases, median {statistics.median(values.values()):.3f} CPU s per prediction, "
            f"worst {values[worst]:.3f} ({' '.join(map(str, worst))}); 128k/1k over {len(ratios)} flash cases: "
            f"median {statistics.median(ratios.values()):.1f}x, worst {ratios[worst_ratio]:.1f}x "
            f"({' '.join(worst_ratio)})"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parsed = _ab.parse(__doc__, 2, argv, summary, repeats=2)
    if parsed is None:
        return
    args, versions = parsed
    stdin = "".join(json.dumps(case) + "\n" for case in cases())
    columns = ["round", "label", "arch", "algo", "pass", "seqlen", "cpu_s", "cycles", "hbm_read_bytes"]
    with args.out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for number in range(args.rounds):
            for label, folder in versions if number % 2 == 0 else versions[::-1]:
                command = [sys.executable, "-c", WORKER, str(args.repeats)]
                done = subprocess.run(command, cwd=folder, input=stdin, capture_output=True, text=True, check=True)
                for line in done.stdout.splitlines():
                    writer.writerow([number, label, *json.loads(line)])
                handle.flush()
                print(f"round {number} {label} done", file=sys.stderr)
    text = summary(args.out)
    args.out.with_suffix(".txt").write_text(text, encoding="utf-8")
    print(text, end="")


if __name__ == "__main__":
    main()
