import sys

import numpy as np
from scaled import scaled_h200

from simgpu import Problem
from simgpu.api import schedule
from simgpu.fast import plan_fast
from simgpu.fast_costs import _fit_variant, class_costs, metric_names

arch = scaled_h200(int(sys.argv[1]))
p = Problem(1, int(sys.argv[2]), 1024, 128, causal=True)
planned = plan_fast(arch, schedule(arch, "v1", p, {}))
plan = planned.plans[0]
names = metric_names(arch)
sharers = min(arch.sms, len(plan.kernel.tiles))
costs, ops = class_costs(arch, plan, arch.clock_hz, 10**9, planned.shares[0], names, sharers)
removed = plan.removed[0]
print("fit", plan.fit, "tiles", len(plan.kernel.tiles), "removed", removed, "whole", plan.whole)
for c, label in zip(costs[plan.kinds[0]], ["1 busy", "1 alone", "2 busy", "2 alone"], strict=True):
    print(
        label,
        "times",
        np.round(c.of(removed)[:3]),
        "base",
        np.round(c.base[:2]),
        "slopes",
        np.round(c.slopes[:, 1]).tolist(),
    )
rep = plan.representative(plan.kinds[0])
variants = [_fit_variant(rep, side, plan.spec.period, planned.shares[0]) for side in plan.sides]
print("sides", plan.sides, "base executed", rep.executed)
for side, v in zip(plan.sides, variants, strict=True):
    print(" ", side, "added", [n - b for n, b in zip(v.executed, rep.executed, strict=True)])
