"""The case the session left furthest from exact mode: v1's causal forward on the H200 at 16 x 32 x 1024, d = 64
(default configuration: two CTAs an SM, two waves). Fast mode's class costs (time to a slot's first tile and of a
further one, removed iterations added back) with its loops folded and with nothing folded (`KEEP_ITERATIONS` raised),
per CTAs on the SM and busy or alone; then the folded costs' base and their removed-iteration costs per loop (top,
inner, first key block's, last key block's). Python modules (fast mode's function watched).
`python docs/results/spread_load_55/two_wave_costs.py > two_wave_costs.txt`"""

from __future__ import annotations

import os

os.environ["SIMGPU_NATIVE"] = "0"

from typing import Any
from unittest import mock

import simgpu.fast as fast
import simgpu.fast_plan
from simgpu import Problem, simulate

PROBLEM = Problem(16, 32, 1024, 64, causal=True)


def main() -> None:
    report("h200", "v1", PROBLEM)


def report(arch: Any, algo: str, problem: Problem, options: dict[str, Any] | None = None) -> None:
    """The class costs of `algo` on `arch` for `problem`, folded and with nothing folded (`main`'s print)."""
    seen: list[tuple[Any, Any]] = []
    class_costs = fast.class_costs

    def watched(*args: Any, **kwargs: Any) -> Any:
        made = class_costs(*args, **kwargs)
        seen.append((args[1], made[0]))
        return made

    fast.__dict__["class_costs"] = watched
    for label, keep in (("folded", simgpu.fast_plan.KEEP_ITERATIONS), ("nothing folded", 10**9)):
        seen.clear()
        with mock.patch.object(simgpu.fast_plan, "KEEP_ITERATIONS", keep):
            cycles = simulate(arch, algo, problem, options).cycles
        plan, costs = seen[-1]  # the run at the clock the prediction settles at
        print(f"{label}: {cycles:,.0f} cycles; iterations removed per loop {plan.removed[0]}")
        for cost_list in costs.values():
            for n, cost in enumerate(cost_list):
                first, further = cost.of(plan.removed[0])[:2]
                setting = f"{n // 2 + 1} CTAs {'busy' if n % 2 == 0 else 'alone'}"
                print(f"  {setting}: first tile {first:,.0f}, further tile {further:,.0f}")
                if keep != 10**9:
                    print(
                        f"    base {cost.base[0]:,.0f} / {cost.base[1]:,.0f}; a removed iteration "
                        f"{[round(float(x)) for x in cost.slopes[:, 1]]}"
                    )
    fast.__dict__["class_costs"] = class_costs


if __name__ == "__main__":
    main()
