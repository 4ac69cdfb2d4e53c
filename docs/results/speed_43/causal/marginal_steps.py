"""What one more query step costs v1's causal forward representative (H200, B x H x 1024, d = 128 by default) as more
are kept: the fold's nested loops of one kind ('inner': the key blocks after the first; 'first': the first key block)
widened by 0-6 periods, run in each of the plan's settings with two CTAs on the SM (`python marginal_steps.py B H
[D]`; SIMGPU_NATIVE=0, as it replaces a compiled function)."""

import sys
from dataclasses import replace

import simgpu.fast_costs as fast_costs
from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.fast import plan_fast
from simgpu.fold import NESTED_SIDES, fold_tile

arch = load_arch("h200")
headdim = int(sys.argv[3]) if len(sys.argv) > 3 else 128
problem = Problem(int(sys.argv[1]), int(sys.argv[2]), 1024, headdim, causal=True)
planned = plan_fast(arch, schedule(arch, "v1", problem, {}))
plan = planned.plans[0]
names = fast_costs.metric_names(arch)
calls = []
representative = fast_costs._representative


def recorded(*args, **kwargs):
    run = representative(*args, **kwargs)
    calls.append(args)
    return run


fast_costs._representative = recorded
sharers = min(arch.sms, len(plan.kernel.tiles))
fast_costs.class_costs(arch, plan, arch.clock_hz, 10**9, planned.shares[0], names, sharers)
fast_costs._representative = representative
base = plan.representative(plan.kinds[0])
print("fold", base.spec, "executed", base.executed, "removed", plan.removed[0])
settings = list(dict.fromkeys(args[3] for args in calls))
print("settings (CTAs, burst, share, traffic):", settings)
for setting in settings:
    if setting[0] != 2:
        continue
    args = next(each for each in calls if each[3] == setting)
    for side in ("inner", "first"):
        kind = NESTED_SIDES.index(side)
        rows = []
        for periods in range(7):
            extra = tuple(e + (periods if n == kind else 0) for n, e in enumerate(base.spec.extra))
            tile = fold_tile(*base.source, replace(base.spec, extra=extra), base.bodiless, memo=base.memo)
            cycles = representative(args[0], args[1], tile, setting, *args[4:]).vector[0]
            rows.append((tile.executed[1:3], round(cycles)))
        print(f"share {setting[2]:.4f}", side, [(kept, cycles, cycles - rows[0][1]) for kept, cycles in rows])
