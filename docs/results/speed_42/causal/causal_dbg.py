import sys

import numpy as np

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.fast import plan_fast
from simgpu.fast_costs import class_costs, metric_names

arch = load_arch("h200", {"hbm.loaded_latency": None} if len(sys.argv) > 1 else {})
for causal in (True, False):
    p = Problem(16, 16, 1024, 128, causal=causal)
    ks = schedule(arch, "v1", p, {})
    planned = plan_fast(arch, ks)
    plan = planned.plans[0]
    names = metric_names(arch)
    sharers = min(arch.sms, len(plan.kernel.tiles))
    costs, ops = class_costs(arch, plan, arch.clock_hz, 10**9, planned.shares[0], names, sharers)
    print(
        "causal",
        causal,
        "fit",
        plan.fit,
        "tiles",
        len(plan.kernel.tiles),
        "kinds",
        len(set(plan.kinds)),
        "removed",
        set(map(tuple, plan.removed)) if len(set(map(tuple, plan.removed))) < 5 else len(set(map(tuple, plan.removed))),
        "ops",
        ops,
    )
    for kind, cs in costs.items():
        for c in cs:
            print("  ctas", c.ctas, "times", np.round(c.of(plan.removed[plan.kinds.index(kind)])[:3]))
    if causal:
        c = costs[plan.kinds[0]][2]
        print("   ctas2 busy base[:2]", np.round(c.base[:2]), "slopes[:, :2]", np.round(c.slopes[:, :2]).tolist())
        c = costs[plan.kinds[0]][0]
        print("   ctas1 busy base[:2]", np.round(c.base[:2]), "slopes[:, :2]", np.round(c.slopes[:, :2]).tolist())
