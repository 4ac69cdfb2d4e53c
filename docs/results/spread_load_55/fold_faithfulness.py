"""How faithful fast mode's fold is: fast mode with its loops folded over fast mode with nothing folded (the
representative runs every iteration: `simgpu.fast_plan.KEEP_ITERATIONS` raised), for v1's causal forward and
backward on the H200 (default configuration) and FA1's split forward as released on the H100 (1 x 32 x 16k, d = 64,
causal, 8 splits, at the run's counted clock). Both sides take the same replay's miss shares; only the fold differs.
Run with the checkout to look at first on the path:
`python docs/results/spread_load_55/fold_faithfulness.py > fold_faithfulness.txt`"""

from __future__ import annotations

from typing import Any
from unittest import mock

import simgpu.fast_plan
from simgpu import Problem, load_arch, simulate

H100_RUN = load_arch("h100", {"clock_hz": 1844.6669552598414e6, "power": None})
CASES: tuple[tuple[Any, Problem, dict[str, object]], ...] = (
    ("h200", Problem(16, 16, 1024, 128, causal=True), {}),
    ("h200", Problem(4, 32, 4096, 64, causal=True), {}),
    ("h200", Problem(8, 32, 1024, 64, causal=True), {}),
    ("h200", Problem(16, 32, 1024, 64, causal=True), {}),
    ("h200", Problem(16, 32, 1024, 64, causal=True, pass_="bwd"), {}),
    ("h200", Problem(16, 32, 1024, 64), {}),
    (H100_RUN, Problem(1, 32, 16384, 64, causal=True), {"splits": 8}),
)


def main() -> None:
    departures = []
    for arch, problem, options in CASES:
        folded = simulate(arch, "v1", problem, options).cycles
        with mock.patch.object(simgpu.fast_plan, "KEEP_ITERATIONS", 10**9):
            whole = simulate(arch, "v1", problem, options).cycles
        departures.append(abs(folded / whole - 1))
        name = arch if isinstance(arch, str) else f"{arch.name} at {arch.clock_hz / 1e6:.0f} MHz"
        print(
            f"{name} {problem.describe()} {options or ''}: folded {folded:,.0f}, nothing folded {whole:,.0f}, "
            f"ratio {folded / whole:.4f}"
        )
    print(f"mean |ratio - 1| {100 * sum(departures) / len(departures):.1f}%, largest {100 * max(departures):.1f}%")


if __name__ == "__main__":
    main()
