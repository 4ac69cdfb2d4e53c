"""Exact mode's CPU seconds for one case at issue 4's shape (batch 4, 16 heads or the fourth argument, N = 4096,
d = 64), after a small warm-up: `python one.py ARCH ALGO PASS [HEADS]` prints the case, the seconds, the cycles and
whether the engine ran compiled. `ab_all.sh` runs it in a base and a new checkout in turn (the helper's paths)."""

import sys
import time

from simgpu import Problem, load_arch, native, simulate

simulate("h100", "v2", Problem(1, 1, 256, 64), mode="exact")
arch, algo, pass_ = sys.argv[1:4]
heads = int(sys.argv[4]) if len(sys.argv) > 4 else 16
a = load_arch(arch)
t = time.process_time()
r = simulate(a, algo, Problem(4, heads, 4096, 64, pass_=pass_), mode="exact")
print(arch, algo, pass_, heads, round(time.process_time() - t, 2), r.cycles, native.compiled())
