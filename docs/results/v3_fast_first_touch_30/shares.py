"""The bandwidth shares fast mode gives the v3 validation case's representatives with every SM busy (first tiles,
further tiles; `simgpu.fast_costs._busy_shares`), from each kind's lone demand, in kind order.

`PYTHONPATH=. python docs/results/v3_fast_first_touch_30/shares.py` (its output: `shares.txt` beside it)
"""

from __future__ import annotations

from case import validation_case

import simgpu.fast_costs as costs
from simgpu import simulate
from simgpu.validation import case_arch

case = validation_case()
busy_shares = costs._busy_shares


def logged(sms: int, demand: float) -> tuple[float, float]:
    first, further = busy_shares(sms, demand)
    print(f"{sms} SMs busy, lone demand {demand:.5f} of the chip: first tiles {first:.4f}, further tiles {further:.4f}")
    return first, further


costs._busy_shares = logged  # type: ignore[assignment]
simulate(case_arch(case), "v3", case.problem, case.options)
