"""A/B of fast mode's speed between two checkouts (say a `git worktree` of the base commit and this one): each
round starts one process per checkout and hands them every case in turn, the checkouts alternating case by case
(ABBA), each answering with a warm-up prediction and then the least CPU time of `--repeats` more; the rows go to one
CSV. The summary gives per case and label the median over rounds, and per label the median over cases, the worst
case and the 128k/1k ratio of each arch x algorithm x pass.

CPU time (`time.process_time`), not wall time: the machine is shared, and the checkouts alternate so that both see
the same load (each row also records the load average). The cases are `benchmarks.simspeed`'s shapes (16k tokens,
16 heads, d = 128): by default (`--grid ab`) at 1k and 128k, standard attention at 1k and 16k (it does not run
longer sequences there) and v1 at 1k (seconds per prediction past it); `--grid simspeed` takes every sequence length
of `benchmarks.simspeed` (1k to 128k; standard and v1 to 16k: v1 past it takes seconds per prediction, far above the
median). Only `simulate` is imported from the checkout, so any commit with fast mode can be measured.

`python -m benchmarks.fast_ab --a base=DIR --b new=DIR [--rounds 2] [--grid simspeed] --out FILE.csv` (summary:
FILE.txt); `python -m benchmarks.fast_ab --summary FILE.csv` summarizes a CSV already written.
"""

from __future__ import annotations

import csv
import json
import os
import statistics
import subprocess
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from benchmarks import _ab

ARCHS = {"a100": ("standard", "v1", "v2"), "h100": ("standard", "v1", "v2", "v3")}
ARCHS |= {"h200": ARCHS["h100"], "b200": ("standard", "v1", "v2", "v4")}
SHORT, LONG, MIDDLE = 1024, 131072, 16384
SIMSPEED_SEQLENS = (1024, 4096, 16384, 65536, 131072)  # `benchmarks.simspeed.SEQLENS`

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


def cases(grid: str = "ab") -> list[tuple[str, str, str, int]]:
    """The cases of `grid` ("ab" or "simspeed", see the module docstring) as (arch, algorithm, pass, seqlen)."""
    if grid == "simspeed":
        middle = tuple(n for n in SIMSPEED_SEQLENS if n <= MIDDLE)
        lengths = {"standard": middle, "v1": middle}
    else:
        lengths = {"standard": (SHORT, MIDDLE), "v1": (SHORT,)}
    out = []
    for arch, algos in ARCHS.items():
        for algo in algos:
            for pass_ in ("fwd", "bwd"):
                for seqlen in lengths.get(algo, SIMSPEED_SEQLENS if grid == "simspeed" else (SHORT, LONG)):
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
    parsed = _ab.parse(__doc__, 2, argv, summary, repeats=2, grids=("ab", "simspeed"))
    if parsed is None:
        return
    args, versions = parsed
    write_rounds(args.out, versions, cases(args.grid), args.rounds, args.repeats)
    text = summary(args.out)
    args.out.with_suffix(".txt").write_text(text, encoding="utf-8")
    print(text, end="")


def write_rounds(
    path: Path,
    versions: Sequence[tuple[str, str]],
    chosen: Sequence[tuple[str, str, str, int]],
    rounds: int,
    repeats: int,
) -> None:
    """`rounds` rounds into the CSV at `path`: each starts a worker per checkout (`versions`: label, folder) and hands
    them every case of `chosen` in turn, the checkouts alternating case by case (ABBA)."""
    columns = ["round", "label", "arch", "algo", "pass", "seqlen", "cpu_s", "cycles", "hbm_read_bytes", "load1"]
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for number in range(rounds):
            workers = [_start(folder, repeats) for _, folder in versions]
            try:
                for position, case in enumerate(chosen):
                    turns = [0, 1] if (number + position) % 2 == 0 else [1, 0]
                    for turn in turns:
                        row = _ask(workers[turn], case)
                        writer.writerow([number, versions[turn][0], *row, os.getloadavg()[0]])
                    handle.flush()
            finally:
                for worker in workers:
                    worker.stdin.close()  # type: ignore[union-attr]
                    worker.wait()
            print(f"round {number} done", file=sys.stderr)


def _start(folder: str, repeats: int) -> subprocess.Popen[str]:
    """A worker in `folder` (its `simgpu` first on the path) that answers cases sent one at a time."""
    command = [sys.executable, "-c", WORKER, str(repeats)]
    return subprocess.Popen(command, cwd=folder, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def _ask(worker: subprocess.Popen[str], case: tuple[str, str, str, int]) -> list[object]:
    """The worker's row for `case`: arch, algorithm, pass, seqlen, CPU seconds, cycles, HBM read bytes."""
    assert worker.stdin is not None and worker.stdout is not None
    worker.stdin.write(json.dumps(case) + "\n")
    worker.stdin.flush()
    line = worker.stdout.readline()
    if not line:
        raise RuntimeError(f"the worker in {worker.args} stopped at {case}")
    row: list[object] = json.loads(line)
    return row


if __name__ == "__main__":
    main()
