import sys
import time

from simgpu import Problem, native, simulate

assert native.compiled()
arch, algo, pass_ = sys.argv[1:4]
simulate("h100", "v2", Problem(1, 1, 256, 64), mode="exact")
t = time.process_time()
simulate(arch, algo, Problem(4, 16, 4096, 64, pass_=pass_), mode="exact")
print(f"{algo} {pass_} {time.process_time() - t:.3f}")
