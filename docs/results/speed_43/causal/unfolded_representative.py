"""v1's causal forward representative (H200, B x H x 1024, d = 128) run with its loops whole, in each setting its
plan's class costs ran (CTAs, burst, share, traffic), beside the folded base run (`python unfolded_representative.py
B H`; SIMGPU_NATIVE=0, as it replaces a compiled function)."""

import sys
from dataclasses import replace

import simgpu.fast_costs as fast_costs
from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.fast import plan_fast
from simgpu.fold import fold_tile

arch = load_arch("h200")
problem = Problem(int(sys.argv[1]), int(sys.argv[2]), 1024, 128, causal=True)
planned = plan_fast(arch, schedule(arch, "v1", problem, {}))
plan = planned.plans[0]
names = fast_costs.metric_names(arch)
calls = []
representative = fast_costs._representative


def recorded(*args, **kwargs):
    run = representative(*args, **kwargs)
    calls.append((args, run))
    return run


fast_costs._representative = recorded
sharers = min(arch.sms, len(plan.kernel.tiles))
fast_costs.class_costs(arch, plan, arch.clock_hz, 10**9, planned.shares[0], names, sharers)
fast_costs._representative = representative
base = plan.representative(plan.kinds[0])
whole = fold_tile(*base.source, replace(base.spec, keep=10**6), base.bodiless, memo=base.memo)
print("whole: executed", whole.executed, "removed", whole.removed)
seen = []
for args, run in calls:
    if args[3] in seen:
        continue
    seen.append(args[3])
    unfolded = representative(args[0], args[1], whole, args[3], *args[4:])
    print("setting", args[3], "folded base", round(run.vector[0]), "whole", round(unfolded.vector[0]))
