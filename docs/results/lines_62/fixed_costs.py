"""The fixed costs of fast mode's representative runs (`simgpu.fast_costs`), compiled, on the speed benchmark's v3
backward at 16k tokens on the H100: how many engine runs a prediction makes, and the wall time (median of 2,000
calls, this VM) of what each run or setting adds besides its ops: the folded tile's kernel (`with_programs`), that
kernel cut to a number of tiles (`dataclasses.replace`), a run's metrics (`metric_vector`), a cost with removed
iterations added back (`Cost.of`) and an engine with one SM (`Engine()`). Run in each checkout
(`PYTHONPATH=DIR python docs/results/lines_62/fixed_costs.py`)."""

from __future__ import annotations

import dataclasses
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import simgpu.engine as engine_module
from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.fast_costs import Cost, metric_names, metric_vector
from simgpu.fast_plan import plan_kernel
from simgpu.kernel import with_programs


def _median_us(call: Callable[[], Any], times: int = 2000) -> float:
    spans = []
    for _ in range(times):
        started = time.perf_counter()
        call()
        spans.append(time.perf_counter() - started)
    return 1e6 * statistics.median(spans)


def main() -> None:
    arch, problem = load_arch("h100"), Problem(1, 16, 16384, 128, pass_="bwd")
    runs = [0]
    run = Engine.run

    def counted(self: Engine, kernels: Any) -> Any:
        runs[0] += 1
        return run(self, kernels)

    simulate(arch, "v3", problem)
    if not engine_module.__file__.endswith(".py"):
        print("compiled engine: runs counted from the ops the prediction reports instead")
    else:
        Engine.run = counted  # type: ignore[method-assign]
        simulate(arch, "v3", problem)
        Engine.run = run  # type: ignore[method-assign]
        print(f"engine runs a prediction: {runs[0]}")
    kernel = schedule(arch, "v3", problem, {})[0]
    plan = plan_kernel(arch, kernel)
    tile = plan.representative(plan.kinds[0])
    folded = with_programs(plan.kernel, tile.marked)
    two = dataclasses.replace(folded, tiles=range(2))
    names = metric_names(arch)
    stats = Engine(arch, arch.clock_hz, sms=1).run([two])
    width = 3 + len(names) + 2
    try:  # the change's bounds are index arrays, the base's tuples of positions
        cost = Cost(np.ones(width), np.ones((2, width)), 2, (np.arange(3, 10), np.arange(10, 12)))
    except TypeError:
        cost = Cost(np.ones(width), np.ones((2, width)), 2, (tuple(range(3, 10)), tuple(range(10, 12))))
    print(f"with_programs: {_median_us(lambda: with_programs(plan.kernel, tile.marked)):.1f} us")
    print(f"replace(tiles=range(2)): {_median_us(lambda: dataclasses.replace(folded, tiles=range(2))):.1f} us")
    print(f"metric_vector: {_median_us(lambda: metric_vector(stats, names)):.1f} us")
    print(f"Cost.of: {_median_us(lambda: cost.of((3, 1))):.1f} us")
    print(f"Engine(): {_median_us(lambda: Engine(arch, arch.clock_hz, sms=1)):.1f} us")


if __name__ == "__main__":
    main()
