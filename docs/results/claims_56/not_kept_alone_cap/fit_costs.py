"""The random case (seed 7, #589) that the cap was tried on: v1's forward on an H200 cut to 4 SMs and 4 MiB of L2,
2 x 3 heads, 2048 queries over 470 keys, d = 96, one split. Fast mode's class costs with its loops folded (base and
a removed iteration per loop: top, inner, first key block's, last key block's) and with nothing folded, per CTAs on
the SM and busy or alone, then exact mode's cycles. Python modules (fast mode's function watched).
`python docs/results/claims_56/not_kept_alone_cap/fit_costs.py > fit_costs.txt`"""

from __future__ import annotations

import os

os.environ["SIMGPU_NATIVE"] = "0"

from typing import Any
from unittest import mock

import simgpu.fast as fast
import simgpu.fast_plan
from simgpu import Problem, load_arch, simulate

ARCH = load_arch("h200", {"sms": 4, "l2.capacity_bytes": 4194304})
PROBLEM = Problem(2, 3, 2048, 96, seqlen_k=470)
OPTIONS = {"splits": 1}


def main() -> None:
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
            cycles = simulate(ARCH, "v1", PROBLEM, OPTIONS).cycles
        plan, costs = seen[-1]
        print(f"{label}: {cycles:,.0f} cycles; iterations removed per loop {plan.removed[0]}")
        for cost_list in costs.values():
            for n, cost in enumerate(cost_list):
                first, further = cost.of(plan.removed[0])[:2]
                setting = f"{n // 2 + 1} CTAs {'busy' if n % 2 == 0 else 'alone'}"
                line = f"  {setting}: first {first:,.0f}, further {further:,.0f}"
                if keep != 10**9:
                    slopes = [round(float(x)) for x in cost.slopes[:, 1]]
                    line += f"; base {cost.base[1]:,.0f}, a removed iteration {slopes}"
                print(line)
    fast.__dict__["class_costs"] = class_costs
    print(f"exact mode: {simulate(ARCH, 'v1', PROBLEM, OPTIONS, mode='exact').cycles:,.0f} cycles")


if __name__ == "__main__":
    main()
