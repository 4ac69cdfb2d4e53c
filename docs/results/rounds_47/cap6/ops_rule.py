"""The ops fast mode simulates over simspeed's grid with a representative's further rounds holding a whole cycle of
the rarest tensor's misses wherever at most K rounds do, and 4 (the cap as it stands) otherwise: the cheaper form of
raising the cap. `SIMGPU_NATIVE=0 python ops_rule.py K OUT.csv` (K = 0: the code as it stands); each line of OUT:
arch, algorithm, pass, sequence length, ops."""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `counted`, beside this folder

from counted import counted_ops

import simgpu.fast_costs as fast_costs
from simgpu import native
from simgpu.fold import FoldedTile
from simgpu.units.fluid_l2 import MissShares


def rounds_up_to(most: int):  # type: ignore[no-untyped-def]
    def rounds(tile: FoldedTile, shares: Mapping[str, MissShares], ctas: int) -> int:
        per_round = [
            ctas * count * miss.kinds(False)[kind]
            for (tensor, kind), count in fast_costs._access_counts(tile).items()
            if (miss := shares.get(tensor)) is not None and 0 < miss.kinds(False)[kind] < 1
        ]
        if not per_round:
            return 1
        cycle = max(1, math.ceil(1 / min(per_round)))
        return cycle if cycle <= most else min(cycle, 4)

    return rounds


def main(most: int, out: str) -> None:
    assert not native.compiled(), "run with SIMGPU_NATIVE=0: the rule is patched in the sources"
    if most:
        fast_costs._rounds = rounds_up_to(most)
    rows = counted_ops((most,), lambda _most: None)
    lines = [f"{r['arch']},{r['algo']},{r['pass']},{r['seqlen']},{r[f'ops_{most}']}\n" for r in rows]
    with open(out, "w") as handle:
        handle.writelines(lines)
    print(most, sum(int(line.rsplit(",", 1)[1]) for line in lines))


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
