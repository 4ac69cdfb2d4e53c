"""Why fast mode timed v1's causal forward on the H200 at 16 x 16 x 1024, d = 128 (the default configuration: two CTAs
an SM, one wave) 16.9% slower than exact mode: the folded tile's marks and the fit of its removed iterations.

1. The folded tile keeps the first key block's query steps 0-8 and 61-63; the next key block starts at step 8 (the
   mask's triangle), so its kept steps 9-16 read Q_i, O_i and the LSE of rows whose first key block's step was removed:
   first reads in the folded program, re-reads in the whole one. The replay saw no first load of O or LSE (the whole
   program stores them first), so their share of first loads was that of no bytes, 0: each such load hit. Printed: the
   second key block's loads, as the representative (one CTA, every SM busy) makes them, at the base fold and at the fit
   variant with two more steps in the first key block, which turns two of those first reads into re-reads.
2. Per fit (one CTA alone, busy; two alone, busy): the iterations each variant adds, its time and tensor-core busy
   cycles over the base, and the solved cost of a removed iteration per loop (top, inner, first key block's).
Python modules (fast mode's functions watched). Run with the checkout to look at first on the path:
`python docs/results/spread_load_55/causal_fit.py > causal_fit.txt`"""

from __future__ import annotations

import os

os.environ["SIMGPU_NATIVE"] = "0"

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

import simgpu.fast_costs as fast_costs
from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.fast import plan_fast
from simgpu.fast_costs import _fit_variant, metric_names
from simgpu.kernel import with_programs
from simgpu.ops import TileKey
from simgpu.units import fluid_l2
from simgpu.units.fluid_l2 import Retouch

PROBLEM = Problem(16, 16, 1024, 128, causal=True)
SECOND_BLOCK = (27_000.0, 45_000.0)  # cycles of the one-CTA run that hold the second key block's kept steps


def marks() -> None:
    arch = load_arch("h200", {"power": None, "clock_hz": 1.8e9})
    planned = plan_fast(arch, schedule(arch, "v1", PROBLEM, {}))
    plan, shares = planned.plans[0], planned.shares[0]
    base = plan.representative(plan.kinds[0])
    print(f"folded tile: iterations run {base.executed}, removed {plan.removed[0]}, fit variants {plan.sides}")
    for tensor in ("Q", "O_acc", "LSE"):
        share = shares[tensor]
        print(f"  {tensor}: loads missed, first {share.load:.3f}, again {share.load_again:.3f}")
    log: list[tuple[float, str, bool, object, bool]] = []
    access = fluid_l2.FluidL2._access

    def watched(self: Any, now: float, l2_done: float, key: Any, nbytes: float, kind: int, share: float = 1.0) -> Any:
        made = access(self, now, l2_done, key, nbytes, kind, share)
        if type(key) is TileKey and kind == 0 and key.tensor in ("O_acc", "LSE"):
            again = isinstance(key.tile, Retouch)
            log.append((now, key.tensor, again, key.tile.key if again else key.tile, not made.hit))
        return made

    fluid_l2.FluidL2._access = watched  # type: ignore[method-assign]
    for name, tile in (("base", base), ("first", _fit_variant(base, "first", plan.spec.period, shares))):
        log.clear()
        engine = Engine(
            arch, arch.clock_hz, None, 10**9, sms=1, miss_shares=shares, max_ctas_per_sm=1,
            bandwidth_share=0.49, traffic_share=1 / 132, burst_share=1 / 132 / 0.49,
        )  # fmt: skip
        cycles = engine.run([replace(with_programs(plan.kernel, tile.marked), tiles=range(1))]).cycles
        shown = [
            f"{tensor} {'again' if again else 'first'} row {row[2]} {'miss' if miss else 'hit'}"  # type: ignore[index]
            for now, tensor, again, row, miss in log
            if SECOND_BLOCK[0] <= now < SECOND_BLOCK[1]
        ]
        print(f"{name}: iterations run {tile.executed}, one CTA busy {cycles:,.0f} cycles; second key block's loads:")
        print("  " + "; ".join(shown))
    fluid_l2.FluidL2._access = access  # type: ignore[method-assign]


def fits() -> None:
    names = ("first tile", "further tile", "tail", *metric_names(load_arch("h200")))
    tensor = names.index("busy:tensor")
    solve = fast_costs.solve_removed

    def watched(added: Sequence[Sequence[int]], deltas: Sequence[np.ndarray]) -> Any:
        slopes = solve(added, deltas)
        print(
            f"  added {[list(row) for row in added]}: time over the base {[round(float(d[0])) for d in deltas]}, "
            f"tensor busy {[round(float(d[tensor])) for d in deltas]} -> a removed iteration "
            f"{slopes[:, 0].round().tolist()} cycles, tensor busy {slopes[:, tensor].round().tolist()}"
        )
        return slopes

    fast_costs.__dict__["solve_removed"] = watched
    print("fits (one CTA alone, one busy, two alone, two busy):")
    fast = simulate("h200", "v1", PROBLEM)
    fast_costs.__dict__["solve_removed"] = solve
    exact = simulate("h200", "v1", PROBLEM, mode="exact")
    print(f"fast mode {fast.cycles:,.0f} cycles, tensor cores {fast.busy['tensor']:.3f} busy")
    print(f"exact mode {exact.cycles:,.0f} cycles, tensor cores {exact.busy['tensor']:.3f} busy")
    print(f"fast over exact {fast.cycles / exact.cycles:.4f}")


if __name__ == "__main__":
    marks()
    fits()
