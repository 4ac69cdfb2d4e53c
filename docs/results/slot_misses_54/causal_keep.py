"""Where fast mode's causal v1 (our kernel's loop) comes out fast on the H200: 8 x 32 x 2048, d = 64, causal (the
validation's worst v1 shape now, 4% under exact mode; one wave, two CTAs an SM, each loop of key blocks holding a
shorter loop of query blocks), and the same shape without the mask, with the folds keeping 4 (the default,
`simgpu.fast_plan.KEEP_ITERATIONS`), 8 and 16 iterations at each end of a loop: the fewer removed, the nearer exact
mode, so the miss is in the fitted cost of a removed iteration, not in the representative's share. Python modules (the
constant is replaced). `python docs/results/slot_misses_54/causal_keep.py > causal_keep.txt`"""

from __future__ import annotations

import os

os.environ["SIMGPU_NATIVE"] = "0"

import simgpu.fast_plan as fast_plan
from simgpu import Problem, simulate

OPTIONS = {"block_m": 64, "block_n": 64, "warps": 4, "variant": "algorithm1"}


def main() -> None:
    for causal in (True, False):
        problem = Problem(8, 32, 2048, 64, causal=causal)
        exact = simulate("h200", "v1", problem, OPTIONS, mode="exact").cycles
        print(f"causal {causal}: exact mode {exact:,.0f} cycles")
        for keep in (4, 8, 16):
            fast_plan.KEEP_ITERATIONS = keep
            cycles = simulate("h200", "v1", problem, OPTIONS).cycles
            print(f"  fast mode keeping {keep:2d}: {cycles:,.0f} cycles, {cycles / exact:.3f} of exact mode")
        fast_plan.KEEP_ITERATIONS = 4


if __name__ == "__main__":
    main()
