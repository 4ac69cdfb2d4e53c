"""The times fast mode's list schedule gets for v1's causal forward on the H200 (B x H x N, d): per CTAs on an SM,
every SM busy or this one alone, a slot's first tile, a further one and the tail (`simgpu.fast_schedule`), folded as
planned or, with `whole`, with no loop folded (`python schedule_table.py B H N D [whole]`; SIMGPU_NATIVE=0, as it
replaces a compiled function)."""

import sys

import numpy as np

import simgpu.fast as fast
import simgpu.fast_plan as fast_plan
from simgpu import Problem, simulate

batch, heads, seqlen, headdim = map(int, sys.argv[1:5])
if sys.argv[5:] == ["whole"]:
    fast_plan.KEEP_ITERATIONS = fast_plan.UNFOLDED
schedule = fast.shared_schedule


def shown(sms, slots, times, tile_class, sharers):
    cycles = schedule(sms, slots, times, tile_class, sharers)
    np.set_printoptions(suppress=True, linewidth=120)
    print(f"{sms} SMs, {slots} slots, {len(tile_class)} tiles, {sharers} sharers: {cycles:.0f} cycles")
    print(np.round(times))
    return cycles


fast.shared_schedule = shown
result = simulate("h200", "v1", Problem(batch, heads, seqlen, headdim, causal=True))
print(f"{result.cycles:.0f} cycles, HBM busy {result.busy['hbm']:.3f}")
