"""The v3 validation case of `first_touch.py` (fit 1): each kind's representative (the folded tile fast mode runs)
on one SM, five tiles in a row, at an equal share of the chip's bandwidth (1/132) and with all of it, with the
replay's miss shares: each CTA's duration (first to last span of its roles) and the gaps between them.

`PYTHONPATH=. python docs/results/v3_fast_first_touch_30/one_sm.py` (its output: `one_sm.txt` beside it)
"""

from __future__ import annotations

from dataclasses import replace

from case import validation_case

import simgpu.fast as F
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.kernel import with_programs
from simgpu.trace import Trace
from simgpu.validation import case_arch

case = validation_case()
arch = case_arch(case)
ks = schedule(arch, "v3", case.problem, case.options)
pf = F.plan_fast(arch, ks)
plan = pf.plans[0]
clock = arch.clock_hz
for kind in range(4):
    tile = plan.representative(kind)
    folded = with_programs(plan.kernel, tile.marked)
    for share, traffic in ((1 / 132, 1 / 132), (1.0, 1.0)):
        tr = Trace(sms=(0,), max_spans=10**6)
        k = replace(folded, tiles=range(5))
        r = Engine(
            arch,
            clock,
            tr,
            10**8,
            sms=1,
            miss_shares=pf.shares[0],
            max_ctas_per_sm=1,
            bandwidth_share=share,
            traffic_share=traffic,
        ).run([k])
        ext = {}
        for s in tr.spans:
            if s.track.startswith("CTA slot"):
                n = int(s.track.split(" ")[2])
                a, b = ext.get(n, (1e18, 0))
                ext[n] = (min(a, s.start_cycles), max(b, s.end_cycles))
        v = sorted(ext.values())
        durs = [b - a for a, b in v]
        gaps = [v[i + 1][0] - v[i][1] for i in range(len(v) - 1)]
        print(
            "kind",
            kind,
            f"share {share:.4f}",
            "cycles",
            round(r.cycles),
            "durations",
            [round(d) for d in durs],
            "gaps",
            [round(g) for g in gaps],
        )
