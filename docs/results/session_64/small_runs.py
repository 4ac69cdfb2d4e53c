"""Instructions of fast mode's representative runs of a small kernel, for a count under callgrind
(`valgrind --tool=callgrind python small_runs.py WHAT N`, with N = 0 and a larger N: the difference over N is one
call). WHAT `class_costs`: `simgpu.fast_costs.class_costs` of v3's backward preprocessing kernel (the H100, 16 x 16k
tokens, d = 128, the speed benchmark's problem) at 1.83 GHz, 1,500 ops over its representative runs; `engine`: one
`Engine(sms=1)` as a representative run makes it."""

from __future__ import annotations

import sys

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.fast import plan_fast
from simgpu.fast_costs import class_costs, metric_names


def main(what: str, repeats: int) -> None:
    arch = load_arch("h100")
    if what == "engine":
        Engine(arch, sms=1, miss_shares={})
        for _ in range(repeats):
            Engine(arch, 1.83e9, None, 10**9, sms=1, miss_shares={}, max_ctas_per_sm=2, bandwidth_share=0.5)
        return
    planned = plan_fast(arch, schedule(arch, "v3", Problem(1, 16, 16384, 128, pass_="bwd"), {}))
    names, plan = metric_names(arch), planned.plans[0]
    sharers = min(arch.sms, len(plan.kernel.tiles))
    for _ in range(1 + repeats):
        class_costs(arch, plan, 1.83e9, 10**9, planned.shares[0], names, sharers)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
