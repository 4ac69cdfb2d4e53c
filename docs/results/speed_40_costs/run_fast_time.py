"""CPU milliseconds of `simgpu.fast.run_fast` alone (the representative runs and the list schedule, at the arch
clock) on a plan made beforehand, least of REPEATS, with the run's ops and cycles: run from each checkout in turn,
alternating, to compare. `python docs/results/speed_40_costs/run_fast_time.py [REPEATS]`
"""

import sys
import time

from benchmarks.simspeed import problem_for
from simgpu import load_arch, native
from simgpu.api import schedule
from simgpu.engine import DEFAULT_EVENT_BUDGET
from simgpu.fast import plan_fast, run_fast

CASES = (
    ("h200", "v1", "fwd", 1024),
    ("h100", "v1", "fwd", 4096),
    ("h100", "v1", "bwd", 1024),
    ("h100", "v2", "fwd", 131072),
    ("h100", "v2", "bwd", 1024),
    ("h200", "v3", "fwd", 16384),
    ("h100", "v3", "bwd", 1024),
    ("b200", "v4", "fwd", 65536),
)

if not native.compiled():
    sys.exit("not compiled: run build_native.py in this checkout first")
repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 5
total = 0.0
for arch_name, algo, pass_, seqlen in CASES:
    arch = load_arch(arch_name)
    kernels = schedule(arch, algo, problem_for(seqlen, pass_), {})
    planned = plan_fast(arch, kernels)
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        stats = run_fast(arch, kernels, arch.clock_hz, DEFAULT_EVENT_BUDGET, planned)
        best = min(best, time.process_time() - started)
    total += best
    print(f"{arch_name} {algo} {pass_} {seqlen}: {best * 1e3:.1f} ms  ops={stats.ops} cycles={stats.cycles!r}")
print(f"total {total * 1e3:.1f} ms")
