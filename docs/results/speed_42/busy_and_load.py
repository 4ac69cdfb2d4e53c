"""Fast mode's busy fractions against exact mode's for v1's forward where its tiles fill one slot of each SM (the
A100 at 2 x 8 heads, the H200 at 16 heads), and `load_arch("h200")`'s time per call. Run in a checkout before and
after the session's changes: `python busy_and_load.py`."""

import os
import time

from simgpu import Problem, load_arch, simulate

for arch, problem in (("a100", Problem(2, 8, 1024, 64)), ("h200", Problem(1, 16, 2048, 128))):
    exact, fast = simulate(arch, "v1", problem, mode="exact"), simulate(arch, "v1", problem)
    ratios = " ".join(f"{u}:{fast.busy[u] / b:.3f}" for u, b in exact.busy.items() if b > 0.01)
    print(f"{os.getcwd()} {arch} v1 fwd: cycles fast/exact {fast.cycles / exact.cycles:.5f}; busy fast/exact {ratios}")
load_arch("h200")
started = time.process_time()
for _ in range(20):
    load_arch("h200")
print(f"{os.getcwd()} load_arch('h200'): {(time.process_time() - started) / 20 * 1000:.2f} ms CPU per call")
