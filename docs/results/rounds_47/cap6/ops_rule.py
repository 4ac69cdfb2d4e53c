"""The ops fast mode simulates over simspeed's grid with a representative's further rounds holding a whole cycle of
the rarest tensor's misses wherever at most K rounds do, and 4 (the cap as it stands) otherwise: the cheaper form of
raising the cap. `SIMGPU_NATIVE=0 python ops_rule.py K OUT.csv` (K = 0: the code as it stands); each line of OUT:
arch, algorithm, pass, sequence length, ops."""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping

import simgpu.api as api
import simgpu.fast_costs as fast_costs
from benchmarks.simspeed import ALGOS, ARCHS, PASSES, SEQLENS, problem_for
from simgpu import native, simulate
from simgpu.errors import SimgpuError
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
    counted: list[int] = []
    run_fast = api.run_fast

    def counting(*args: object, **kwargs: object) -> object:
        stats = run_fast(*args, **kwargs)  # type: ignore[arg-type]
        counted.append(stats.ops)
        return stats

    api.run_fast = counting  # type: ignore[assignment]
    lines = []
    for arch in ARCHS:
        for algo in ALGOS:
            for pass_ in PASSES:
                for seqlen in SEQLENS:
                    counted.clear()
                    try:
                        simulate(arch, algo, problem_for(seqlen, pass_), mode="fast")
                    except SimgpuError:
                        break  # the algorithm does not run on this arch
                    lines.append(f"{arch},{algo},{pass_},{seqlen},{sum(counted)}\n")
    with open(out, "w") as handle:
        handle.writelines(lines)
    print(most, sum(int(line.rsplit(",", 1)[1]) for line in lines))


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
