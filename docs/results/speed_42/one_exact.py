import sys
import time

from simgpu import Problem, simulate

simulate("h100", "v2", Problem(1, 1, 256, 64), mode="exact")
arch, algo, pass_ = sys.argv[1:4]
t = time.process_time()
r = simulate(arch, algo, Problem(4, 16, 4096, 64, pass_=pass_), mode="exact")
print(arch, algo, pass_, round(time.process_time() - t, 2), r.cycles)
