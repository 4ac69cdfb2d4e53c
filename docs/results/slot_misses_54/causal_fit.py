"""The fit of a removed iteration in fast mode's causal v1 (our kernel's loop) on the H200 at 8 x 32 x 2048, d = 64: the
representative's folded tile (iterations run per loop, and removed), the replay's miss shares of a tile's re-reads
(loads) by tensor, and per fit (one CTA alone, one busy, two alone,
two busy) the iterations each fit variant adds, its time over the base, and the solved cost of a removed iteration of
each loop. Python modules (the solver is watched).
`python docs/results/slot_misses_54/causal_fit.py > causal_fit.txt`"""

from __future__ import annotations

import os

os.environ["SIMGPU_NATIVE"] = "0"

from collections.abc import Sequence
from typing import Any

import numpy as np

import simgpu.fast_costs as fast_costs
from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.fast import plan_fast

OPTIONS = {"block_m": 64, "block_n": 64, "warps": 4, "variant": "algorithm1"}
PROBLEM = Problem(8, 32, 2048, 64, causal=True)


def main() -> None:
    arch = load_arch("h200")
    planned = plan_fast(arch, schedule(arch, "v1", PROBLEM, OPTIONS))
    plan = planned.plans[0]
    tile = plan.representative(plan.kinds[0])
    print(f"folded tile: iterations run {tile.executed}, removed {plan.removed[0]}, fit variants {plan.sides}")
    again = {tensor: round(share.load_again, 3) for tensor, share in planned.shares[0].items() if share.load_again}
    print(f"re-reads missed, by tensor: {again}")
    solve = fast_costs.solve_removed

    def watched(added: Sequence[Sequence[int]], deltas: Sequence[np.ndarray]) -> Any:
        slopes = solve(added, deltas)
        print(
            f"  added {[list(row) for row in added]}, first-tile time over the base "
            f"{[round(float(delta[0])) for delta in deltas]} -> a removed iteration {slopes[:, 0].round().tolist()}"
        )
        return slopes

    fast_costs.__dict__["solve_removed"] = watched
    print(f"fast mode: {simulate('h200', 'v1', PROBLEM, OPTIONS).cycles:,.0f} cycles")


if __name__ == "__main__":
    main()
