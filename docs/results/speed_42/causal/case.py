import os

from simgpu import Problem, simulate

p = Problem(16, 16, 1024, 128, causal=True)
f = simulate("h200", "v1", p)
e = simulate("h200", "v1", p, mode="exact")
print(os.getcwd(), f.cycles / e.cycles, f.cycles, e.cycles)
