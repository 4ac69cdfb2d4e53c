"""What one more query step costs v1's causal forward representative (H200, B x H x 1024, d = 128 by default) as more
are kept: the fold's nested loops of one kind ('inner': the key blocks after the first; 'first': the first key block)
widened by 0-6 periods, run in each of the plan's settings with two CTAs on the SM (`python marginal_steps.py B H
[D]`; SIMGPU_NATIVE=0, as it replaces a compiled function)."""

import sys
from dataclasses import replace

from recorded import REPRESENTATIVE, recorded_costs

from simgpu.fold import NESTED_SIDES, fold_tile

headdim = int(sys.argv[3]) if len(sys.argv) > 3 else 128
arch, plan, recorded = recorded_costs(int(sys.argv[1]), int(sys.argv[2]), headdim)
calls = [args for args, _ in recorded]
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
            cycles = REPRESENTATIVE(args[0], args[1], tile, setting, *args[4:]).vector[0]
            rows.append((tile.executed[1:3], round(cycles)))
        print(f"share {setting[2]:.4f}", side, [(kept, cycles, cycles - rows[0][1]) for kept, cycles in rows])
