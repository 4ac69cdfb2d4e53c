"""The per-class form of the ops bound, not kept: each kind of tile takes further rounds up to a whole cycle of its
rarest misses within `ROUNDS_OPS` ops of its own (the kept form judges every kind of a kernel by its costliest). On
v2's causal forward on the H200 at N = 4k (16k tokens, 2,048 / d heads) against exact mode's cycles of
`../../speed_44/causal/fast_vs_exact_causal.csv` (exact mode has not changed since). Runs on the sources
(`SIMGPU_NATIVE=0`: `_rounds` is patched): `python per_class.py > per_class.txt`."""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Mapping
from pathlib import Path

os.environ["SIMGPU_NATIVE"] = "0"

import simgpu.fast_costs as fast_costs
from experiments.fast_vs_exact import CAUSAL_TOKENS
from simgpu import Problem, simulate
from simgpu.engine import _count_ops
from simgpu.fold import FoldedTile
from simgpu.units.fluid_l2 import MissShares

EXACT = Path(__file__).parent.parent.parent / "speed_44" / "causal" / "fast_vs_exact_causal.csv"
kept_rounds = fast_costs._rounds


def per_class_rounds(tile: FoldedTile, shares: Mapping[str, MissShares], ctas: int, most: int) -> int:
    """The rounds with the bound judged on this kind's own tile, not the kernel's costliest."""
    own = max(fast_costs.MAX_ROUNDS, int(fast_costs.ROUNDS_OPS // max(1.0, ctas * sum(map(_count_ops, tile.marked)))))
    per_round = [
        ctas * count * miss.kinds(False)[kind]
        for (tensor, kind), count in fast_costs._access_counts(tile).items()
        if (miss := shares.get(tensor)) is not None and 0 < miss.kinds(False)[kind] < 1
    ]
    return min(own, max(1, math.ceil(1 / min(per_round)))) if per_round else 1


def main() -> None:
    with EXACT.open() as handle:
        exact = {
            (r["arch"], r["algo"], r["pass"], int(r["seqlen_q"]), int(r["headdim"])): float(r["cycles_exact"])
            for r in csv.DictReader(handle)
        }
    for d in (64, 128):
        problem = Problem(CAUSAL_TOKENS // 4096, 2048 // d, 4096, d, causal=True)
        ratios = []
        for rounds in (kept_rounds, per_class_rounds):
            fast_costs._rounds = rounds
            ratios.append(simulate("h200", "v2", problem, mode="fast").cycles / exact["h200", "v2", "fwd", 4096, d])
        print(
            f"h200 v2 causal fwd N = 4096, d = {d}: fast over exact, kept form {ratios[0]:.4f}, "
            f"per class {ratios[1]:.4f}"
        )


if __name__ == "__main__":
    main()
