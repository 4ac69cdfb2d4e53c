import statistics
import time

from simgpu import Problem, native, simulate

assert native.compiled()
cases = [("v1", 4, 4096, "fwd"), ("v2", 1, 16384, "bwd"), ("standard", 1, 16384, "fwd"), ("v3", 1, 16384, "bwd")]
out = []
for algo, b, n, p in cases:
    problem = Problem(b, 16, n, 128, pass_=p)
    simulate("h200", algo, problem)
    times = []
    for _ in range(5):
        t = time.process_time()
        simulate("h200", algo, problem)
        times.append(time.process_time() - t)
    out.append(f"{algo}-{p}-{n}-b{b} {statistics.median(times):.4f}")
print(" | ".join(out))
