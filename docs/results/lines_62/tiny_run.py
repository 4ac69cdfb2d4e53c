"""A fast-mode representative run of few ops, REPEATS times after one warm-up, for callgrind: one SM, two CTAs of
v3's backward preprocessing kernel (10 ops), as `simgpu.fast_costs` runs it 64 times a prediction at 16k tokens.
(The total at REPEATS minus that at 0, over REPEATS: one run's instructions, its fixed costs mostly.)
`valgrind --tool=callgrind python docs/results/lines_62/tiny_run.py REPEATS`."""

from __future__ import annotations

import dataclasses
import sys

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.fast_plan import plan_kernel
from simgpu.kernel import with_programs


def main(repeats: int) -> None:
    arch = load_arch("h100")
    kernel = schedule(arch, "v3", Problem(1, 16, 16384, 128, pass_="bwd"), {})[0]
    plan = plan_kernel(arch, kernel)
    folded = with_programs(plan.kernel, plan.representative(plan.kinds[0]).marked)
    two = dataclasses.replace(folded, tiles=range(2))
    for _ in range(1 + repeats):
        Engine(arch, arch.clock_hz, sms=1).run([two])


if __name__ == "__main__":
    main(int(sys.argv[1]))
