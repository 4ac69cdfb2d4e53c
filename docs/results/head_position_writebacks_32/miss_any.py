"""Per kernel and tensor: exact mode's load miss share vs the replay's (SIMGPU_NATIVE=0).
python miss_any.py ARCH ALGO PASS B H N D [SMS]"""

import sys
from collections import defaultdict

import simgpu.units.l2 as l2_model
from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.fast import plan_fast

arch_name, algo, pas = sys.argv[1:4]
b, h, n, d = map(int, sys.argv[4:8])
over = {"sms": int(sys.argv[8])} if len(sys.argv) > 8 else {}
arch = load_arch(arch_name, overrides=over)
kernels = schedule(arch, algo, Problem(b, h, n, d, pass_=pas), {})
acc = defaultdict(float)
mis = defaultdict(float)
run = [0]
load = l2_model.L2.load


def counted(self, now, key, nbytes):
    a = load(self, now, key, nbytes)
    t = str(key[0] if isinstance(key, tuple) else key)
    acc[run[0], t] += nbytes
    if not a.hit:
        mis[run[0], t] += nbytes
    return a


l2_model.L2.load = counted
eng = Engine(arch)
rk = eng._run_kernel


def numbered(kernel, fit, start):
    run[0] = kernels.index(kernel)
    return rk(kernel, fit, start)


eng._run_kernel = numbered
eng.run(kernels)
l2_model.L2.load = load
shares = plan_fast(arch, kernels).shares
for (k, t), nb in sorted(acc.items()):
    s = shares[k].get(t)
    replayed = f"fast {s.load:.3f} again {s.load_again:.3f}" if s else "fast None"
    exact = f"exact miss {mis[k, t] / nb:.3f}"
    print(f"  kernel {k} {kernels[k].name:16s} {t:6s} loaded {nb / 1e6:8.3f} MB {exact}  {replayed}")
