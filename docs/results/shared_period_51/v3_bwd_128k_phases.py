"""Where fast mode's prediction of v3's backward at 128k tokens on the H100 spends its time (issue 8's slowest case):
the plan (folds) and the L2 replay, then per clock (the run is re-timed at the power-limited clock) each kernel's
class costs (the representative SMs' runs) and list schedule. Wall times of one process after a warm-up prediction,
the median of 5. `python docs/results/shared_period_51/v3_bwd_128k_phases.py > .../v3_bwd_128k_phases.txt`"""

from __future__ import annotations

import statistics
import time
from collections import defaultdict
from typing import Any

import simgpu.api as api
import simgpu.fast as fast
from simgpu import Problem, load_arch, simulate

PHASES: dict[str, list[float]] = defaultdict(list)


def timed(name: str, function: Any) -> Any:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            PHASES[name(*args) if callable(name) else name].append(time.perf_counter() - started)

    return wrapper


def main() -> None:
    arch, problem = load_arch("h100"), Problem(1, 16, 131072, 128, pass_="bwd")
    api.plan_fast = timed("plan and L2 replay", api.plan_fast)  # type: ignore[assignment]
    costs, schedule = fast.class_costs, fast.shared_schedule
    fast.class_costs = timed(lambda _arch, plan, *rest: f"class costs {plan.kernel.name}", costs)  # type: ignore[assignment]
    fast.shared_schedule = timed(lambda *args: f"list schedule, {args[2].shape[0]} classes", schedule)  # type: ignore[assignment]
    simulate(arch, "v3", problem)
    PHASES.clear()
    totals = []
    for _ in range(5):
        started = time.perf_counter()
        simulate(arch, "v3", problem)
        totals.append(time.perf_counter() - started)
    print(f"prediction: {1000 * statistics.median(totals):.1f} ms (median of 5)")
    for name, times in PHASES.items():
        per_prediction = len(times) // 5
        print(f"{name}: {per_prediction} a prediction, {1000 * statistics.median(times):.1f} ms each (median)")


if __name__ == "__main__":
    main()
