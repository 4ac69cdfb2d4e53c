"""Fast mode's wall time per phase on the speed benchmark's shapes (16k tokens, 16 heads, d = 128; seqlen 1k, 16k and
128k), compiled: the fast-mode functions that `simgpu.fast` calls (a compiled module's own calls are not seen)
wrapped with a timer, one prediction per case after a warm-up. Phases: `program` (the schedule's kernels,
`simgpu.api.schedule`), `plan` (`plan_kernel`: shapes folded, kinds numbered), `replay` (`replayed_bytes`: the L2
replay and its fit), `costs` (`class_costs`: the representative SMs' engine runs), `sched` (the list schedule),
`whole` (kernels run whole), `other` (the rest of `simulate`).

`PYTHONPATH=. python docs/results/phase_times_30.py > docs/results/phase_times_30.txt`
"""

from __future__ import annotations

import collections
import time
from collections.abc import Callable
from typing import Any

import simgpu.api as api
import simgpu.fast as fast
from simgpu import Problem, load_arch, native, simulate
from simgpu.errors import SimgpuError

spent: collections.Counter[str] = collections.Counter()


def timed(module: Any, name: str, phase: str) -> None:
    function: Callable[..., Any] = getattr(module, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            spent[phase] += time.perf_counter() - started

    setattr(module, name, wrapper)


for module, name, phase in (
    (fast, "plan_kernel", "plan"),
    (fast, "replayed_bytes", "replay"),
    (fast, "class_costs", "costs"),
    (fast, "shared_schedule", "sched"),
    (fast, "run_whole", "whole"),
    (api, "schedule", "program"),
):
    timed(module, name, phase)

print(f"# compiled: {native.compiled()}")
for arch_name in ("a100", "h100", "h200", "b200"):
    arch = load_arch(arch_name)
    for algo in ("standard", "v1", "v2", "v3", "v4"):
        for pass_ in ("fwd", "bwd"):
            for seqlen in (1024, 16384, 131072):
                problem = Problem(max(1, 16384 // seqlen), 16, seqlen, 128, pass_=pass_)
                try:
                    simulate(arch, algo, problem)
                except SimgpuError:
                    continue
                spent.clear()
                started = time.perf_counter()
                simulate(arch, algo, problem)
                total = time.perf_counter() - started
                phases = " ".join(f"{key} {value:.3f}" for key, value in sorted(spent.items()))
                other = total - sum(spent.values())
                print(f"{arch_name} {algo} {pass_} {seqlen} total {total:.3f} {phases} other {other:.3f}")
