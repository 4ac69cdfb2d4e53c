"""The figures in `tests/core/test_fast.py`'s loaded-latency story: v3's forward on an H200 cut to 16 SMs (4 x 16 x
512, d = 64), the HBM's loaded latency raised from none to 2000 cycles (what-ifs); how much it slows fast mode and
exact mode, with the busy further tiles as they are and with the rule before this session (a busy further tile took
its time alone whenever that was less). `SIMGPU_NATIVE=0 python docs/results/shared_period_51/loaded_latency_whatif.py
> docs/results/shared_period_51/loaded_latency_whatif.txt` (pure Python: the old rule replaces `_shared_period`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import simgpu.fast_costs as fast_costs
from simgpu import Problem, load_arch, simulate

SHIPPED = fast_costs._shared_period


def old_rule(busy: np.ndarray, alone: np.ndarray, served: Sequence[int], ctas: int) -> np.ndarray:
    """Before the fifty-first session: the further tile's time alone wherever it was less."""
    vector: np.ndarray = busy.copy()
    vector[1] = min(busy[1], alone[1])
    return vector


def slowdown(problem: Problem, mode: str) -> float:
    cycles = [
        simulate(
            load_arch("h200", {"sms": 16, "hbm.loaded_latency.extra_cycles": extra}), "v3", problem, mode=mode
        ).cycles
        for extra in (0, 2000)
    ]
    return cycles[1] / cycles[0]


def main() -> None:
    for causal in (False, True):
        problem = Problem(4, 16, 512, 64, causal=causal)
        exact = slowdown(problem, "exact")
        for name, rule in (("now", SHIPPED), ("before", old_rule)):
            fast_costs._shared_period = rule
            fast = slowdown(problem, "fast")
            print(
                f"causal {causal}, {name:6}: slowdown fast {fast:.4f}, exact {exact:.4f},"
                f" fast / exact {fast / exact:.4f}"
            )
        fast_costs._shared_period = SHIPPED


if __name__ == "__main__":
    main()
