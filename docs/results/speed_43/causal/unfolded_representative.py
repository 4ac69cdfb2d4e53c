"""v1's causal forward representative (H200, B x H x 1024, d = 128) run with its loops whole, in each setting its
plan's class costs ran (CTAs, burst, share, traffic), beside the folded base run (`python unfolded_representative.py
B H`; SIMGPU_NATIVE=0, as it replaces a compiled function)."""

import sys
from dataclasses import replace

from recorded import REPRESENTATIVE, recorded_costs

from simgpu.fold import fold_tile

arch, plan, calls = recorded_costs(int(sys.argv[1]), int(sys.argv[2]))
base = plan.representative(plan.kinds[0])
whole = fold_tile(*base.source, replace(base.spec, keep=10**6), base.bodiless, memo=base.memo)
print("whole: executed", whole.executed, "removed", whole.removed)
seen = []
for args, run in calls:
    if args[3] in seen:
        continue
    seen.append(args[3])
    unfolded = REPRESENTATIVE(args[0], args[1], whole, args[3], *args[4:])
    print("setting", args[3], "folded base", round(run.vector[0]), "whole", round(unfolded.vector[0]))
