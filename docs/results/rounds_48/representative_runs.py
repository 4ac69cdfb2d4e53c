"""Fast mode's representative engine runs for v3's backward on the H100 file at 16k tokens (1 x 16 heads, d = 128), as
the code stands: per run its kernel, tiles (slots x rounds), ops and cycles, in the order they run (both clocks: the
power-limited clock re-runs them). `SIMGPU_NATIVE=0 python docs/results/rounds_48/representative_runs.py >
docs/results/rounds_48/representative_runs.txt` (the engine's `run` is wrapped)."""

from __future__ import annotations

from typing import Any

import simgpu.engine as engine
from simgpu import Problem, native, simulate

assert not native.compiled(), "run with SIMGPU_NATIVE=0: the engine's run is wrapped"
run = engine.Engine.run


def counted(self: engine.Engine, kernels: Any, *args: Any, **kwargs: Any) -> Any:
    stats = run(self, kernels, *args, **kwargs)
    if kernels[0].name == "v3_bwd":
        print(f"{kernels[0].name}: {len(kernels[0].tiles)} tiles, {stats.ops} ops, {stats.cycles:.0f} cycles")
    return stats


engine.Engine.run = counted  # type: ignore[method-assign]
simulate("h100", "v3", Problem(1, 16, 16384, 128, pass_="bwd"), mode="fast")
