"""Time plan_fast and simulate(fast) per case: best CPU of N after warm-up. Usage: python t.py N case..."""

import gc
import json
import sys
import time

from simgpu import Problem, load_arch, native, simulate
from simgpu.api import schedule
from simgpu.fast import plan_fast

CASES = {
    "v1f16": ("h200", "v1", "fwd", 16384),
    "v1f128": ("h200", "v1", "fwd", 131072),
    "v1b16": ("h200", "v1", "bwd", 16384),
    "v1b128": ("h200", "v1", "bwd", 131072),
    "v2b128": ("h200", "v2", "bwd", 131072),
    "stf16": ("h200", "standard", "fwd", 16384),
    "stb16": ("h200", "standard", "bwd", 16384),
    "v3b128": ("h200", "v3", "bwd", 131072),
    "v2f128": ("h200", "v2", "fwd", 131072),
    "v4b128": ("b200", "v4", "bwd", 131072),
    "v1f1": ("h200", "v1", "fwd", 1024),
    "stf1": ("h200", "standard", "fwd", 1024),
    "v2b1": ("h200", "v2", "bwd", 1024),
    "v3b1": ("h200", "v3", "bwd", 1024),
    "v4f1": ("b200", "v4", "fwd", 1024),
}
assert native.compiled()
n = int(sys.argv[1])
for name in sys.argv[2:]:
    arch_name, algo, p, s = CASES[name]
    arch = load_arch(arch_name)
    prob = Problem(max(1, 16384 // s), 16, s, 128, pass_=p)
    ks = schedule(arch, algo, prob, {})
    plan_fast(arch, ks)
    pt = []
    for _ in range(n):
        gc.collect()
        t = time.process_time()
        fp = plan_fast(arch, ks)
        pt.append(time.process_time() - t)
        del fp
    simulate(arch, algo, prob, mode="fast")
    st = []
    for _ in range(n):
        gc.collect()
        t = time.process_time()
        r = simulate(arch, algo, prob, mode="fast")
        st.append(time.process_time() - t)
    print(
        json.dumps(
            [
                name,
                round(min(pt) * 1000, 1),
                round(min(st) * 1000, 1),
                [round(x * 1000) for x in pt],
                [round(x * 1000) for x in st],
                r.cycles,
                r.hbm_read_bytes,
            ]
        ),
        flush=True,
    )
