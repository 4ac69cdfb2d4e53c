"""CPU seconds per fast-mode prediction (the least and the median of 5, after a warm-up) for the cases of
`own_memory_ab_30.txt` (16k tokens, 16 heads, d = 128): run once per checkout, alternating, for an A/B.

`PYTHONPATH=CHECKOUT python docs/results/own_memory_ab_30.py`
"""

from __future__ import annotations

import statistics
import time

from simgpu import Problem, load_arch, simulate

CASES = (
    ("h100", "standard", "fwd", 16384),
    ("h100", "standard", "bwd", 16384),
    ("a100", "standard", "fwd", 16384),
    ("h200", "standard", "bwd", 4096),
    ("h100", "v2", "bwd", 1024),
    ("h100", "v1", "fwd", 1024),
)
for arch_name, algo, pass_, seqlen in CASES:
    arch = load_arch(arch_name)
    problem = Problem(max(1, 16384 // seqlen), 16, seqlen, 128, pass_=pass_)
    simulate(arch, algo, problem)
    seconds = []
    for _ in range(5):
        started = time.process_time()
        simulate(arch, algo, problem)
        seconds.append(time.process_time() - started)
    print(arch_name, algo, pass_, seqlen, round(min(seconds), 3), round(statistics.median(seconds), 3))
