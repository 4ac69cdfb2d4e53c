"""Why fast mode ran v1 (our kernel's loop) 15% fast on the H200 at 32 x 32 x 512, d = 64 (two CTAs an SM, 3.9
waves, no loop folded): the representative SM's two CTAs, alone and with every SM busy (the settings fast mode runs
them at, caught in the run), against exact mode's tiles. Per run: the CTAs' tile ends and the mean span of each kind
of op; for exact mode, the tiles' spans and the ops' mean spans over the run's middle (SM 0). Run it with the checkout
to look at on the path (the fifty-third session's, then this one's):
`python docs/results/slot_misses_54/representative_phases.py > representative_phases.txt`"""

from __future__ import annotations

import os

os.environ["SIMGPU_NATIVE"] = "0"  # the Python modules, so that fast mode's representative can be watched

import collections
import statistics
from dataclasses import replace
from typing import Any

import simgpu.fast_costs as fast_costs
from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.fast import plan_fast
from simgpu.kernel import with_programs
from simgpu.trace import Trace

PROBLEM = Problem(32, 32, 512, 64)
OPTIONS = {"block_m": 64, "block_n": 64, "warps": 4, "variant": "algorithm1"}
ROUNDS = 5  # tiles per slot in each representative run shown
MIDDLE = (400_000.0, 700_000.0)  # exact mode's ops counted between these cycles (the second wave)


def op_means(trace: Trace, window: tuple[float, float] = (0.0, float("inf"))) -> str:
    spans: dict[str, list[float]] = collections.defaultdict(list)
    for span in trace.spans:
        if span.track.startswith("CTA") and window[0] <= span.start_cycles < window[1]:
            spans[span.name].append(span.end_cycles - span.start_cycles)
    return ", ".join(f"{name} {statistics.mean(values):.0f}" for name, values in sorted(spans.items()))


def main() -> None:
    settings: list[tuple[Any, ...]] = []
    representative = fast_costs._representative

    def watched(*args: Any, **kwargs: Any) -> Any:
        settings.append(args[3])
        return representative(*args, **kwargs)

    fast_costs.__dict__["_representative"] = watched
    fast = simulate("h200", "v1", PROBLEM, OPTIONS)
    fast_costs.__dict__["_representative"] = representative
    print(f"fast mode: {fast.cycles:,.0f} cycles at {fast.clock_hz / 1e6:.0f} MHz")
    arch = load_arch("h200", {"power": None, "clock_hz": fast.clock_hz})
    kernels = schedule(arch, "v1", PROBLEM, OPTIONS)
    planned = plan_fast(arch, kernels)
    plan, shares = planned.plans[0], planned.shares[0]
    folded = with_programs(plan.kernel, plan.representative(plan.kinds[0]).marked)
    for ctas, burst, share, traffic, _ in (s for s in settings if s[0] == 2):
        trace = Trace(max_spans=10**7)
        engine = Engine(
            arch,
            arch.clock_hz,
            trace,
            10**9,
            sms=1,
            miss_shares=shares,
            max_ctas_per_sm=ctas,
            bandwidth_share=share,
            traffic_share=traffic,
            burst_share=burst / share,
        )
        engine.run([replace(folded, tiles=range(ctas * ROUNDS))])
        ends: dict[str, float] = collections.defaultdict(float)
        for span in trace.spans:
            if span.track.startswith("CTA"):
                ends[span.track] = max(ends[span.track], span.end_cycles)
        label = "alone" if share == 1.0 else f"busy (share {share:.3f}, burst {burst:.4f})"
        print(f"representative, 2 CTAs, {label}: tile ends {', '.join(f'{e:,.0f}' for e in list(ends.values())[:6])}")
        print(f"  op means: {op_means(trace)}")
    trace = Trace(sms=range(arch.sms), max_spans=10**8)
    exact = Engine(arch, arch.clock_hz, trace, 10**9).run(kernels)
    tiles: dict[tuple[str, str], list[float]] = {}
    for span in trace.spans:
        if span.track.startswith("CTA"):
            seen = tiles.setdefault((span.process, span.track), [span.start_cycles, span.end_cycles])
            seen[0], seen[1] = min(seen[0], span.start_cycles), max(seen[1], span.end_cycles)
    lengths = sorted(end - start for start, end in tiles.values())
    print(
        f"exact mode: {exact.cycles:,.0f} cycles; {len(lengths)} tiles, median {statistics.median(lengths):,.0f} "
        f"cycles (tenth {lengths[len(lengths) // 10]:,.0f}, ninetieth {lengths[9 * len(lengths) // 10]:,.0f})"
    )
    sm0 = Trace(sms=(0,), max_spans=10**7)
    Engine(arch, arch.clock_hz, sm0, 10**9).run(kernels)
    print(f"  op means, SM 0, cycles {MIDDLE[0]:,.0f}-{MIDDLE[1]:,.0f}: {op_means(sm0, MIDDLE)}")


if __name__ == "__main__":
    main()
