"""How many representative-SM engine runs fast mode makes for v1 at 1k tokens (simspeed's shape: 16 x 16 heads, d=128,
H100), counted by wrapping `simgpu.fast_costs.Engine` with the engine run as Python (`SIMGPU_NATIVE=0`: compiled
code would call it directly). Run: `SIMGPU_NATIVE=0 python docs/results/v1_engine_runs.py`."""

from __future__ import annotations

from unittest import mock

import simgpu.fast_costs
from simgpu import Problem, native, simulate


def main() -> None:
    runs: list[int] = []
    real = simgpu.fast_costs.Engine

    class Counted(real):  # type: ignore[misc, valid-type]
        def run(self, kernels):  # type: ignore[no-untyped-def]
            stats = super().run(kernels)
            runs.append(stats.ops)
            return stats

    for pass_ in ("fwd", "bwd"):
        runs.clear()
        with mock.patch.object(simgpu.fast_costs, "Engine", Counted):
            simulate("h100", "v1", Problem(16, 16, 1024, 128, pass_=pass_))
        print(f"v1 {pass_} 1k (compiled: {native.compiled()}): {len(runs)} engine runs, {sum(runs)} unit ops")


if __name__ == "__main__":
    main()
