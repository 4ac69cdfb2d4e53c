"""CPU time to build every role's program (not their loop bodies) of the first 20,000 tiles of each kernel, three
rounds, gc off. `python docs/results/speed_41_sched/programs_time.py ARCH ALGO PASS SEQLEN` from a worktree root."""

import gc
import sys
import time

from simgpu import Problem, load_arch
from simgpu.api import schedule

arch_name, algo, pass_, seqlen = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
arch = load_arch(arch_name)
problem = Problem(max(1, 16384 // seqlen), 16, seqlen, 128, pass_=pass_)
gc.disable()
for _ in range(3):
    out = []
    for kernel in schedule(arch, algo, problem, {}):
        tiles = [kernel.tiles[n] for n in range(min(len(kernel.tiles), 20000))]
        start = time.process_time()
        for tile in tiles:
            for role in kernel.roles:
                role.program(tile)
        out.append(f"{kernel.name}:{(time.process_time() - start) * 1000:.1f}ms/{len(tiles)}")
    print(" ".join(out))
