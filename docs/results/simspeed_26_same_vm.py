"""Fast mode's CPU time on one VM at two commits: five of `benchmarks.simspeed`'s cases (16k tokens, 16 heads,
d = 128), each the least of three predictions after a warm-up, with the predicted cycles. The twenty-sixth session ran
it with PYTHONPATH at a worktree of 788331a (where `simspeed_22.csv` was measured, on a faster VM) and at its own
commit (`simspeed_26_same_vm.txt`): the code is as fast as then; `simspeed_26.csv`'s slower times are the VM's.
Run from the repository root: `python docs/results/simspeed_26_same_vm.py`."""

from __future__ import annotations

import time

import simgpu
from simgpu import Problem, load_arch, simulate

print(simgpu.__file__)
for arch, algo, p, n in (
    ("a100", "standard", "bwd", 1024),
    ("a100", "v1", "fwd", 4096),
    ("b200", "v4", "bwd", 1024),
    ("b200", "standard", "fwd", 1024),
    ("h200", "v2", "fwd", 1024),
):
    a = load_arch(arch)
    pr = Problem(max(1, 16384 // n), 16, n, 128, pass_=p)
    simulate(a, algo, pr)
    ts = []
    for _ in range(3):
        t = time.process_time()
        r = simulate(a, algo, pr)
        ts.append(time.process_time() - t)
    print(arch, algo, p, n, f"{min(ts):.3f}", f"{r.cycles:.0f}")
