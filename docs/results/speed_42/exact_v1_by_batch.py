"""Exact mode's CPU time for v1's forward on the H200 at 1, 2 and 4 x 16 heads (N=4096, d=64): identical CTAs, one
per head, so the ops grow with the heads; the time per op grows with them too. `python exact_v1_by_batch.py`."""

import time

from simgpu import Problem, simulate

simulate("h100", "v2", Problem(1, 1, 256, 64), mode="exact")  # imports and first calls out of the timings
for batch in (1, 2, 4):
    started = time.process_time()
    result = simulate("h200", "v1", Problem(batch, 16, 4096, 64), mode="exact")
    seconds = time.process_time() - started
    print(f"batch {batch}: {seconds:.2f} s CPU, {seconds / batch:.2f} s per 16 heads, cycles {result.cycles:.0f}")
