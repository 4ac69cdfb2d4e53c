"""Fast mode's v1 causal forward on the H200 (B x H x N, d) with its plan as folded and with no loop folded
(`simgpu.fast_plan.KEEP_ITERATIONS` raised to `UNFOLDED`): cycles, time and HBM reads (`python unfolded_run.py B H N
D`)."""

import sys
import time

import simgpu.fast_plan as fast_plan
from simgpu import Problem, simulate

batch, heads, seqlen, headdim = map(int, sys.argv[1:5])
problem = Problem(batch, heads, seqlen, headdim, causal=True)
started = time.perf_counter()
folded = simulate("h200", "v1", problem)
folded_s = time.perf_counter() - started
fast_plan.KEEP_ITERATIONS = fast_plan.UNFOLDED
started = time.perf_counter()
whole = simulate("h200", "v1", problem)
whole_s = time.perf_counter() - started
print(
    sys.argv[1:5],
    f"folded {folded.cycles:.0f} cycles ({folded_s:.3f} s), unfolded {whole.cycles:.0f} ({whole_s:.3f} s),",
    f"HBM reads {folded.hbm_read_bytes:.0f} / {whole.hbm_read_bytes:.0f} B",
)
