"""Why fast mode is 1.66% slow on the H100's S = QK^T on 10 SMs (the fast-vs-exact grid's second shape: 1 x 3
heads, N = 1536, d = 128): exact mode's tile times, and fast mode's representative runs with 2 CTAs on an SM.

Prints exact mode's CTA durations by count (issue to last store), the first tiles' ends on one SM, and fast mode's
runs: once (one round of 2 tiles) and then 1 + 4 rounds, with the period they give. Run from the repository root with
`SIMGPU_NATIVE=0` (the engine's run is wrapped): `python docs/results/rounds_47/qk_tiles.py`."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Any

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.fast import plan_fast
from simgpu.fast_costs import class_costs, metric_names
from simgpu.trace import Trace

ARCH = load_arch("h100", {"sms": 10})
PROBLEM = Problem(1, 3, 1536, 128)


def exact_tiles() -> None:
    (qk, *_) = schedule(ARCH, "standard", PROBLEM, {})
    trace = Trace(sms=range(ARCH.sms), max_spans=10**7)
    stats = Engine(ARCH, ARCH.clock_hz, trace).run([qk])
    spans: dict[tuple[str, int], list[Any]] = defaultdict(list)
    for span in trace.spans:
        if match := re.match(r"CTA slot (\d+) ", span.track):
            spans[span.process, int(match.group(1))].append(span)
    ctas = sorted((sm, min(s.start_cycles for s in ss), max(s.end_cycles for s in ss)) for (sm, _), ss in spans.items())
    print(f"exact: {stats.cycles:.0f} cycles, {len(ctas)} tiles")
    print("tile durations (cycles: tiles):", dict(Counter(round(end - start) for _, start, end in ctas).most_common(8)))
    print("SM 0's first tiles (start, end):", [(round(s), round(e)) for sm, s, e in ctas if sm == "SM 0"][:6])


def fast_runs() -> None:
    kernels = schedule(ARCH, "standard", PROBLEM, {})
    planned = plan_fast(ARCH, kernels)
    run = Engine.run
    ends: list[tuple[int, float]] = []

    def timed(self: Engine, kernels: Any, *args: Any, **kwargs: Any) -> Any:
        stats = run(self, kernels, *args, **kwargs)
        ends.append((len(kernels[0].tiles), stats.cycles))
        return stats

    Engine.run = timed  # type: ignore[method-assign]
    costs, _ = class_costs(ARCH, planned.plans[0], ARCH.clock_hz, 10**9, planned.shares[0], metric_names(ARCH), 10)
    Engine.run = run  # type: ignore[method-assign]
    print("fast: Q and K miss shares", planned.shares[0]["Q"].load, planned.shares[0]["K"].load)
    print("fast runs (tiles, cycles):", [(n, round(c)) for n, c in ends])
    for ctas, cost in ((1, costs[0][0]), (2, costs[0][2])):
        print(f"fast, {ctas} CTA(s) an SM, all SMs busy: first tile {cost.base[0]:.0f}, further {cost.base[1]:.0f}")


if __name__ == "__main__":
    exact_tiles()
    fast_runs()
