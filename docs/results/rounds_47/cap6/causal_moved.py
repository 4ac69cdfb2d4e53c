"""Which of fast_vs_exact's --causal cases (whole chips, 16k tokens) the cap on a representative's further rounds
moves, and how far each moved one is from exact mode at 4 rounds and at 6.

`SIMGPU_NATIVE=0 python causal_moved.py fast OUT.csv`   fast mode at 4 and 6 rounds (the cap patched in the
                                                         sources), every case
`python causal_moved.py exact IN.csv OUT.csv`           exact mode for the cases whose fast cycles moved by over 1e-4
"""

from __future__ import annotations

import csv
import sys

import simgpu.fast_costs as fast_costs
from experiments.fast_vs_exact import CAUSAL, CAUSAL_TOKENS
from simgpu import Problem, native, simulate


def problem(algo: str, pass_: str, n: int, d: int) -> Problem:
    return Problem(max(1, CAUSAL_TOKENS // n), 2048 // d, n, d, causal=True, pass_=pass_)


def fast(out: str) -> None:
    assert not native.compiled(), "run with SIMGPU_NATIVE=0: the cap is patched in the sources"
    rows = []
    for arch, algo, pass_, n, d in CAUSAL:
        row = {"arch": arch, "algo": algo, "pass": pass_, "seqlen": n, "headdim": d}
        for cap in (4, 6):
            fast_costs.MAX_ROUNDS = cap
            row[f"fast_{cap}"] = simulate(arch, algo, problem(algo, pass_, n, d), mode="fast").cycles
        rows.append(row)
        print(row, flush=True)
    with open(out, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def exact(source: str, out: str) -> None:
    with open(source) as handle:
        rows = list(csv.DictReader(handle))
    moved = [row for row in rows if abs(float(row["fast_6"]) / float(row["fast_4"]) - 1) > 1e-4]
    for row in moved:
        cycles = simulate(
            row["arch"],
            row["algo"],
            problem(row["algo"], row["pass"], int(row["seqlen"]), int(row["headdim"])),
            mode="exact",
        ).cycles
        row["exact"] = cycles
        row["fast_4_over_exact"] = float(row["fast_4"]) / cycles
        row["fast_6_over_exact"] = float(row["fast_6"]) / cycles
        print(row, flush=True)
    with open(out, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(moved[0]) if moved else ["none"])
        writer.writeheader()
        writer.writerows(moved)


if __name__ == "__main__":
    if sys.argv[1] == "fast":
        fast(sys.argv[2])
    else:
        exact(sys.argv[2], sys.argv[3])
