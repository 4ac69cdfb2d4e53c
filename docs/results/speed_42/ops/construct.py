import itertools
import time

from simgpu import native
from simgpu.ops import Load, Vector

assert native.compiled()
N = 100_000
res = []
for label, make in [
    ("Load(K,i,64)", lambda i: Load("K", i, 64)),
    ("Load kw", lambda i: Load("K", (0, i), 64, engine="cp_async", arrive="kv")),
    ("Vector kw", lambda i: Vector(fma=1.0, alu=2.0, ex2=3.0, chain=None)),
    ("Vector pos", lambda i: Vector(4.0, 1.0, 0.5, arrive="s")),
]:
    best = []
    for _ in range(3):
        t = time.process_time()
        for i in range(N):
            make(i)
        best.append(time.process_time() - t)
    res.append(f"{label} {min(best):.4f}")
# reading fields from Python
ops = [Load("K", i, 64) for i in range(N)]
vs = [Vector(fma=1.0, alu=2.0) for i in range(N)]
t = time.process_time()
for _ in range(3):
    s = 0
    for o in ops:
        s += o.nbytes
    for v in vs:
        s += v.fma + v.alu
read = (time.process_time() - t) / 3
t = time.process_time()
for _ in range(3):
    h = {o for o in ops}
    e = sum(1 for a, b in itertools.pairwise(vs) if a == b)
eqhash = (time.process_time() - t) / 3
res.append(f"read 300k fields {read:.4f}")
res.append(f"hash 100k+eq 100k {eqhash:.4f}")
print(" | ".join(res))
