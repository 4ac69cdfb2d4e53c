import os
import time

from simgpu import Problem, load_arch, simulate

arch = load_arch("h200")
out = []
for algo, p in [
    ("v1", Problem(4, 16, 4096, 128)),
    ("v1", Problem(1, 16, 16384, 128)),
    ("v1", Problem(1, 16, 131072, 128)),
    ("v1", Problem(1, 16, 16384, 128, pass_="bwd")),
    ("v1", Problem(16, 16, 1024, 128)),
]:
    simulate(arch, algo, p)
    ts = []
    for _ in range(5):
        t = time.process_time()
        r = simulate(arch, algo, p)
        ts.append(time.process_time() - t)
    ts.sort()
    out.append(f"{p.batch}x{p.seqlen_q // 1024}k/{p.pass_} {ts[2] * 1000:.0f}ms")
print(os.getcwd()[-8:], " | ".join(out))
