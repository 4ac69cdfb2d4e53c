"""Fast mode against exact mode on the v3 validation configuration it misses most (`simgpu validate --fast`,
`docs/results/validation_fast_30/`): 32 x 32 heads, N = 512, d = 64, causal, ping-pong off, intra-warpgroup overlap
on, one CTA per tile, at its measured clock. Prints fast mode's time per tile of each class (a query block of a head:
4, 3, 2 or 1 key blocks, launched heaviest first) and both modes' cycles, then, from an exact-mode trace of every
11th SM, each class's mean CTA duration (first to last span of its roles), its loads' summed span and the gap
before it on its SM (from the end of the SM's CTA before); and both modes' busy fractions of L2 and HBM.

`PYTHONPATH=. python docs/results/v3_fast_first_touch_30/first_touch.py` (its output: `first_touch.txt` beside it)
"""

from __future__ import annotations

import collections
import itertools
import statistics

import numpy as np
from case import validation_case

import simgpu.fast as fast
from simgpu import simulate
from simgpu.trace import Trace
from simgpu.validation import case_arch

case = validation_case()
arch = case_arch(case)
schedule_of = fast.shared_schedule


def logged(
    sms: int, fit: int, times: np.ndarray, classes: np.ndarray, sharers: int | None = None, *rest: object
) -> float:
    print(f"fit {fit}, tiles per class {np.bincount(classes).tolist()}, order {classes[:8].tolist()}")
    print("fast mode's (first, further) tile per class, every SM busy:", times[:, fit - 1, 0, :2].round(0).tolist())
    return schedule_of(sms, fit, times, classes, sharers, *rest)


fast.shared_schedule = logged  # type: ignore[assignment]
quick = simulate(arch, "v3", case.problem, case.options)
fast.shared_schedule = schedule_of
trace = Trace(sms=range(0, arch.sms, 11), max_spans=5_000_000)
exact = simulate(arch, "v3", case.problem, case.options, mode="exact", trace=trace)
print(f"fast {quick.cycles:.0f} exact {exact.cycles:.0f} fast/exact {quick.cycles / exact.cycles:.4f}")
extent: dict[int, tuple[float, float]] = {}
loads: collections.Counter[int] = collections.Counter()
for span in trace.spans:
    if span.track.startswith("CTA slot"):
        cta = int(span.track.split(" ")[2])  # the CTA's tile, in launch order
        start, end = extent.get(cta, (float("inf"), 0.0))
        extent[cta] = (min(start, span.start_cycles), max(end, span.end_cycles))
        if span.name == "Load":
            loads[cta] += span.end_cycles - span.start_cycles
durations: dict[int, list[float]] = collections.defaultdict(list)
loaded: dict[int, list[float]] = collections.defaultdict(list)
sm_of = {int(span.track.split(" ")[2]): span.process for span in trace.spans if span.track.startswith("CTA slot")}
gaps: dict[int, list[float]] = collections.defaultdict(list)
by_sm: dict[str, list[tuple[float, float, int]]] = collections.defaultdict(list)
for cta, (start, end) in extent.items():
    durations[cta % 4].append(end - start)
    loaded[cta % 4].append(loads[cta])
    by_sm[sm_of[cta]].append((start, end, cta))
for ctas in by_sm.values():
    ctas.sort()
    for (_, before_end, _), (start, _, cta) in itertools.pairwise(ctas):
        gaps[cta % 4].append(start - before_end)
for shape in sorted(durations):
    print(
        f"exact mode, class {shape}: {len(durations[shape])} CTAs, mean duration"
        f" {statistics.mean(durations[shape]):.0f} cycles, loads' summed span {statistics.mean(loaded[shape]):.0f},"
        f" gap before it {statistics.mean(gaps[shape]):.0f}"
    )
for name, result in (("fast", quick), ("exact", exact)):
    print(f"{name} mode busy: L2 {result.busy['l2']:.3f}, HBM {result.busy['hbm']:.3f}")
