"""Exact mode: HBM bytes read and written (timed) per kernel, and untimed; fast mode's replay shares per kernel."""

import sys
from collections import defaultdict

import simgpu.units.hbm as H
from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.fast import plan_fast

arch_name, algo, pas = sys.argv[1:4]
b, h, n, d = map(int, sys.argv[4:8])
arch = load_arch(arch_name, {"sms": int(sys.argv[8])} if len(sys.argv) > 8 else {})
kernels = schedule(arch, algo, Problem(b, h, n, d, pass_=pas), {})
run = [0]
acc = defaultdict(float)
r0, w0, u0 = H.Hbm.read, H.Hbm.write, H.Hbm.write_untimed


def rd(self, now, nb):
    acc[run[0], "read"] += nb
    return r0(self, now, nb)


def wr(self, now, nb):
    acc[run[0], "write"] += nb
    return w0(self, now, nb)


def un(self, nb):
    acc[run[0], "untimed"] += nb
    return u0(self, nb)


H.Hbm.read, H.Hbm.write, H.Hbm.write_untimed = rd, wr, un
eng = Engine(arch)
rk = eng._run_kernel


def numbered(kernel, fit, start):
    run[0] = kernels.index(kernel)
    return rk(kernel, fit, start)


eng._run_kernel = numbered
st = eng.run(kernels)
H.Hbm.read, H.Hbm.write, H.Hbm.write_untimed = r0, w0, u0
for k in range(len(kernels)):
    print(
        "exact kernel", k, kernels[k].name, {key: f"{acc[k, key] / 1e6:.1f} MB" for key in ("read", "write", "untimed")}
    )
print("exact untimed after", acc[run[0], "untimed"] / 1e6)
planned = plan_fast(arch, kernels)
for k, sh in enumerate(planned.shares):
    print("fast kernel", k, {t: (round(s.load, 3), round(s.written, 3)) for t, s in sh.items()})
print("fast bytes_full (hbm read, write, timed, l2 r, l2 w) MB", [round(x / 1e6, 1) for x in planned.bytes_full])
