"""What the representative's alone runs of v1's causal forward (H200, B x H x 1024, d = 128) use of the chip's HBM,
folded as planned and with its loops whole: each alone setting's demand (share of the chip's bandwidth), times the
SMs, and the busy share `_busy_shares` sets from it (`python alone_demand.py B H`; SIMGPU_NATIVE=0, as it replaces a
compiled function)."""

import sys
from dataclasses import replace

from recorded import REPRESENTATIVE, recorded_costs

import simgpu.fast_costs as fast_costs
from simgpu.fold import fold_tile

arch, plan, calls = recorded_costs(int(sys.argv[1]), int(sys.argv[2]))
base = plan.representative(plan.kinds[0])
whole = fold_tile(*base.source, replace(base.spec, keep=10**6), base.bodiless, memo=base.memo)
for args, run in calls:
    if args[3][2] != 1.0 or args[2].executed != base.executed:
        continue
    for label, tile in (("folded", base), ("whole", whole)):
        demand = run.demand if tile is base else REPRESENTATIVE(args[0], args[1], tile, *args[3:]).demand
        busy_share = fast_costs._busy_shares(arch.sms, demand)[1]
        times = f"{demand * arch.sms:.3f}"
        print(f"{args[3][0]} CTAs alone, {label}: demand {demand:.6f} x {arch.sms} SMs = {times}", end=" ")
        print(f"-> busy share {busy_share:.5f} ({busy_share * arch.sms:.2f}x equal)")
