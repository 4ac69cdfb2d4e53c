"""Exact mode's cost per op as the CTAs running at once grow: v1's forward on the H200 (N = 4096, d = 64, one CTA per
head, one wave), 8 to 64 heads; wall seconds of the engine run, ops, and ops per second (compiled where built).

`python docs/results/exact_per_op_31.py`
"""

import time

from simgpu import Problem, load_arch, native
from simgpu.api import schedule
from simgpu.engine import Engine


def main() -> None:
    arch = load_arch("h200")
    print("compiled", native.compiled())
    print("heads ops wall_s ops_per_s us_per_op")
    for heads in (8, 16, 32, 64):
        kernels = schedule(arch, "v1", Problem(1, heads, 4096, 64), {})
        started = time.perf_counter()
        stats = Engine(arch).run(kernels)
        wall = time.perf_counter() - started
        print(heads, stats.ops, f"{wall:.2f}", f"{stats.ops / wall:.0f}", f"{wall / stats.ops * 1e6:.2f}")


if __name__ == "__main__":
    main()
