"""CPU time to build the tile programs of one head of each standard-attention kernel at 16k tokens (16 heads, d =
128, H100; our kernels and PyTorch's), fresh kernels each time as a prediction builds them, the garbage collector
off as in fast mode; the least of three. For the kernels with a k loop (P V and the backward's long GEMMs), also the
time of a loop step, over the first and last 8 steps of every block (the steps a fold keeps).
`python docs/results/speed_40_std/tile_programs_time.py` in a checkout."""

import gc
import time

from algorithms.standard.schedule import schedule
from benchmarks.simspeed import problem_for
from simgpu import load_arch
from simgpu.ops import Repeat

gc.disable()
arch = load_arch("h100")
for pass_ in ("fwd", "bwd"):
    for options in ({}, {"framework": "pytorch"}):
        best: dict[str, tuple[float, int]] = {}
        for _ in range(3):
            for kernel in schedule(arch, problem_for(16384, pass_), **options):
                tiles = [kernel.tiles[t] for t in range(len(kernel.tiles) // 16)]
                started = time.process_time()
                for tile in tiles:
                    for role in kernel.roles:
                        role.program(tile)
                spent = time.process_time() - started
                best[kernel.name] = min(best.get(kernel.name, (spent, 0))[0], spent), len(tiles)
                loops = [op for tile in tiles for op in kernel.roles[0].program(tile) if type(op) is Repeat]
                if loops:
                    steps = [t for t in range(loops[0].count) if t < 8 or t >= loops[0].count - 8]
                    started = time.process_time()
                    for loop in loops:
                        for t in steps:
                            loop.body(t)
                    spent = time.process_time() - started
                    name = f"{kernel.name} step"
                    best[name] = min(best.get(name, (spent, 0))[0], spent), len(loops) * len(steps)
        for name, (spent, count) in best.items():
            print(f"{pass_} {name:22s} {count:6d} {spent * 1e3:7.2f} ms {spent / count * 1e6:6.2f} us each")
