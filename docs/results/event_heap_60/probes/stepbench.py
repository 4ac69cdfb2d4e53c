"""The build of v1's backward query steps (H100, 2 x 16 x 4096, d = 64), the collector off as in an engine run: every
loop body asked once (the first ask builds each step), then again (dictionary hits). Prints both times in seconds."""

from __future__ import annotations

import gc
import time

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.ops import Repeat


def main() -> None:
    gc.disable()
    kernel = schedule(load_arch("h100"), "v1", Problem(2, 16, 4096, 64, pass_="bwd"), {})[0]
    programs = [kernel.roles[0].program(tile) for tile in kernel.tiles]
    outers = [program[-1].body(j) for program in programs for j in range(program[-1].count)]
    loops = [op for outer in outers for op in outer if type(op) is Repeat]
    times = []
    for _ in range(2):
        started = time.perf_counter()
        for loop in loops:
            for i in range(loop.count):
                loop.body(i)
        times.append(time.perf_counter() - started)
    print(f"steps first {times[0]:.3f} again {times[1]:.3f} loops {len(loops)}")


if __name__ == "__main__":
    main()
