"""What the ops bound on a representative's further rounds (`simgpu.fast_costs.ROUNDS_OPS`) moves, with the bound
at 0 (the rounds capped at `MAX_ROUNDS` alone, as before it) and at its value: the ops fast mode simulates over
simspeed's 134 cases (counted, summed over the clocks a prediction runs at), and the cycles of
`experiments.fast_vs_exact`'s 40 causal whole-chip cases. Runs on the sources (`SIMGPU_NATIVE=0`: the bound is
patched): `python moved.py > moved.txt` (writes `ops.csv` beside it)."""

from __future__ import annotations

import csv
import os

os.environ["SIMGPU_NATIVE"] = "0"

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `counted`, beside this folder

from counted import counted_ops

import simgpu.fast_costs as fast_costs
from experiments.fast_vs_exact import CAUSAL, CAUSAL_TOKENS
from simgpu import Problem, simulate

BOUNDS = (0, fast_costs.ROUNDS_OPS)


def ops() -> None:
    def set_bound(bound: int) -> None:
        fast_costs.ROUNDS_OPS = bound

    rows = counted_ops(BOUNDS, set_bound)
    with open("ops.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    before, after = (sum(int(row[f"ops_{bound}"]) for row in rows) for bound in BOUNDS)  # type: ignore[call-overload]
    moved = [row for row in rows if row[f"ops_{BOUNDS[0]}"] != row[f"ops_{BOUNDS[1]}"]]
    print(f"ops over {len(rows)} cases: {before} -> {after}; {len(moved)} cases moved:")
    for row in moved:
        print(
            f"  {row['arch']} {row['algo']} {row['pass']} {row['seqlen']}: {row[f'ops_{BOUNDS[0]}']} -> "
            f"{row[f'ops_{BOUNDS[1]}']}"
        )


def causal() -> None:
    moved = 0
    for arch, algo, pass_, n, d in CAUSAL:
        problem = Problem(max(1, CAUSAL_TOKENS // n), 2048 // d, n, d, causal=True, pass_=pass_)
        cycles = []
        for bound in BOUNDS:
            fast_costs.ROUNDS_OPS = bound
            cycles.append(simulate(arch, algo, problem, mode="fast").cycles)
        if cycles[0] != cycles[1]:
            moved += 1
            print(f"  causal {arch} {algo} {pass_} {n} {d}: {cycles[0]:.0f} -> {cycles[1]:.0f}")
    print(f"causal whole-chip cases whose fast cycles moved: {moved} of {len(CAUSAL)}")


if __name__ == "__main__":
    ops()
    causal()
