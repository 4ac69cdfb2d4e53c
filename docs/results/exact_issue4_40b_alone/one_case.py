"""One case of `benchmarks.exact_issue4` (exact mode at its SHAPE) in a process of its own, to tell the VM's spread
from the batch run's: `python docs/results/exact_issue4_40b_alone/one_case.py ARCH ALGO PASS` prints arch, algorithm,
pass, wall s, CPU s, cycles. The fortieth session's runs: runs.txt."""

import sys
import time

from benchmarks.exact_issue4 import SHAPE
from simgpu import Problem, load_arch, simulate

simulate("h100", "v2", Problem(1, 1, 256, 64), mode="exact")  # imports and first calls out of the timing, as there
arch_name, algo, pass_ = sys.argv[1:4]
arch = load_arch(arch_name)
problem = Problem(**SHAPE, pass_=pass_)
wall, cpu = time.perf_counter(), time.process_time()
result = simulate(arch, algo, problem, mode="exact")
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(arch_name, algo, pass_, round(wall, 2), round(cpu, 2), result.cycles)
