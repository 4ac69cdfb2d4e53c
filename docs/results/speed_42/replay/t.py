"""Median CPU time of 5 predictions after a warm-up. argv: arch algo N pass [algo...]"""

import statistics
import sys
import time

from simgpu import Problem, native, simulate

assert native.compiled()
cases = [
    ("h200", "standard", 16384, "fwd"),
    ("h200", "standard", 16384, "bwd"),
    ("h200", "v2", 65536, "bwd"),
    ("h200", "v2", 131072, "bwd"),
    ("h200", "v1", 16384, "fwd"),
    ("h200", "v1", 131072, "fwd"),
]
sel = sys.argv[1:]
for arch, algo, n, p in cases:
    if sel and f"{algo}{n}{p}" not in sel:
        continue
    prob = Problem(1, 16, n, 128, pass_=p)
    r = simulate(arch, algo, prob)
    ts = []
    for _ in range(5):
        t = time.process_time()
        r = simulate(arch, algo, prob)
        ts.append(time.process_time() - t)
    print(
        f"{algo:9s} {n:6d} {p} {statistics.median(ts) * 1000:7.1f} ms  cycles={r.cycles if hasattr(r, 'cycles') else r}"
    )
