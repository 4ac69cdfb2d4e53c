"""Why fast mode's v3 forward without ping-pong, with intra-warpgroup overlap, comes out 4% slower than exact mode at
the H200 validation's 2 x 16 x 8192, d = 128 (1730 MHz, the clock the chip ran at): the two consumer warpgroups' lag.

`python basin.py exact`           exact mode, SMs 0-15 traced: each CTA's steady period (its consumer 0's QK^T starts,
                                  iterations 4 to the second last) and the consumers' lags past iteration 8
`python basin.py keep K...`       fast mode over exact mode with `KEEP_ITERATIONS` (the fold's kept iterations at
                                  each end) set to each K
`python basin.py representative`  fast mode's representative runs with every SM busy: per CTA, each iteration's
                                  period and the consumers' lag, and the producer's load durations
                                  (SIMGPU_NATIVE=0: it replaces the compiled module's Engine)
"""

from __future__ import annotations

import itertools
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import simgpu.fast_costs as fast_costs
import simgpu.fast_plan as fast_plan
from simgpu import simulate
from simgpu.trace import Span, Trace
from simgpu.validation import case_arch, read_cases

ROOT = Path(__file__).resolve().parents[4]
# The validation's configuration: its shape, switches and clock as `simgpu validate` reads them.
CASE = next(
    case
    for case in read_cases(ROOT / "validation" / "h200" / "v3_kernels_h200.csv", "h200")
    if (case.problem.batch, case.problem.seqlen_q, case.problem.headdim, case.problem.causal) == (2, 8192, 128, False)
    and case.options["pingpong"] is False
    and case.options["intra_wg_overlap"] is True
)
ARCH, PROBLEM, OPTIONS = case_arch(CASE), CASE.problem, CASE.options


def qk_starts(spans: list[Span]) -> list[float]:
    """The start of each iteration's QK^T: a consumer issues three MMAs an iteration, QK^T first."""
    return [span.start_cycles for span in spans if span.name == "Mma"][::3]


def consumers(trace: Trace) -> dict[tuple[str, str], tuple[list[float], list[float]]]:
    """Per CTA (process, track prefix): its two consumers' QK^T starts."""
    tracks: dict[tuple[str, str], list[Span]] = defaultdict(list)
    for span in trace.spans:
        if not span.track.startswith("unit"):
            tracks[span.process, span.track].append(span)
    return {
        (process, track.removesuffix(" consumer0")): (
            qk_starts(spans),
            qk_starts(tracks[process, track.replace("consumer0", "consumer1")]),
        )
        for (process, track), spans in tracks.items()
        if track.endswith("consumer0")
    }


def exact() -> float:
    trace = Trace(sms=range(16), max_spans=5_000_000)
    result = simulate(ARCH, "v3", PROBLEM, OPTIONS, mode="exact", trace=trace)
    periods, lags = [], Counter[int]()
    for first, second in consumers(trace).values():
        steps = [b - a for a, b in itertools.pairwise(first)]
        periods.append(statistics.mean(steps[4:-2]))
        lags.update(round(b - a) for a, b in zip(first[8:], second[8:], strict=False))
    print(f"exact mode {result.cycles:.0f} cycles; {len(periods)} CTAs on SMs 0-15")
    print("steady period (cycles, rounded to 10): CTAs", Counter(round(p, -1) for p in periods).most_common())
    print("lag of consumer 1 behind consumer 0 (cycles): iterations", lags.most_common(6))
    return result.cycles


def keep(counts: list[int]) -> None:
    exact_cycles = simulate(ARCH, "v3", PROBLEM, OPTIONS, mode="exact").cycles
    print(f"exact mode {exact_cycles:.0f} cycles; default KEEP_ITERATIONS {fast_plan.KEEP_ITERATIONS}")
    for count in counts:
        fast_plan.KEEP_ITERATIONS = count
        cycles = simulate(ARCH, "v3", PROBLEM, OPTIONS).cycles
        print(f"KEEP_ITERATIONS {count}: fast over exact {cycles / exact_cycles:.4f}")


def representative() -> None:
    real = fast_costs.Engine

    def traced(*args: Any, **kwargs: Any) -> Any:
        trace = Trace(sms=(0,), max_spans=1_000_000)
        engine = real(args[0], args[1], trace, *args[3:], **kwargs)
        run = engine.run

        def run_traced(kernels: Any) -> Any:
            stats = run(kernels)
            if kwargs.get("bandwidth_share", 1.0) < 1.0 and len(kernels[0].tiles) > 1:
                print(f"--- every SM busy, {len(kernels[0].tiles)} tiles in a row: {stats.cycles:.0f} cycles")
                for (_, cta), (first, second) in consumers(trace).items():
                    steps = [round(b - a) for a, b in itertools.pairwise(first)]
                    lags = [round(b - a) for a, b in zip(first, second, strict=False)]
                    print(f"{cta}: {len(first)} iterations, periods {steps}, lags {lags}")
                loads = sorted(
                    (span.start_cycles, round(span.end_cycles - span.start_cycles))
                    for span in trace.spans
                    if span.track.endswith("producer")
                )
                print("producer load durations", [duration for _, duration in loads])
            return stats

        engine.run = run_traced
        return engine

    fast_costs.Engine = traced  # type: ignore[misc]
    simulate(ARCH, "v3", PROBLEM, OPTIONS)


def main() -> None:
    what = sys.argv[1]
    if what == "exact":
        exact()
    elif what == "keep":
        keep([int(count) for count in sys.argv[2:]])
    else:
        representative()


if __name__ == "__main__":
    main()
