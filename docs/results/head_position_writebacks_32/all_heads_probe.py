"""Fast mode's replay with every head replayed (budgets lifted; SIMGPU_NATIVE=0): its per-kernel shares and bytes,
beside the default replay's."""

import sys

import simgpu.fast_bytes as FB
from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.fast import plan_fast

arch_name, algo, pas = sys.argv[1:4]
b, h, n, d = map(int, sys.argv[4:8])
arch = load_arch(arch_name)
kernels = schedule(arch, algo, Problem(b, h, n, d, pass_=pas), {})


def show(label):
    planned = plan_fast(arch, kernels)
    print(
        label,
        "bytes_full (hbm read, write, timed, l2 r, l2 w) MB",
        [round(float(x) / 1e6, 1) for x in planned.bytes_full],
    )
    for k, sh in enumerate(planned.shares):
        print("  kernel", k, kernels[k].name, {t: (round(s.load, 3), round(s.written, 3)) for t, s in sh.items()})


show("default")
orig = FB._first_heads


def all_heads(arch, plans, known):
    got = orig(arch, plans, known)
    if got is None:
        return None
    total, side, _, _ = got
    return total, side, total, FB._heads_tiles(plans, total)


FB._first_heads = all_heads
FB._own_memory = lambda *a, **k: False
show("all heads")
