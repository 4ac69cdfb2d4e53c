"""v1's forward on the whole H100 (16 x 16 x 1k, splits 1: 256 CTAs in one wave, two to an SM on 124 SMs, one on 8),
d = 64 and 128: exact mode's CTA durations per SM (a trace of every SM) against fast mode's cycles. Tells a
representative SM's own error (fast against exact's median SM) from the kernel ending at its slowest SM. Run from
the repository root (about a minute), output in `sm_spread.txt`:
`python docs/results/cta_sync_not_kept_52/sm_spread.py`."""

from __future__ import annotations

import statistics
from collections import defaultdict

from simgpu import Problem, load_arch, simulate
from simgpu.trace import Trace


def main() -> None:
    arch = load_arch("h100")
    for headdim in (64, 128):
        problem = Problem(16, 16, 1024, headdim)
        trace = Trace(sms=range(arch.sms), max_spans=10**8)
        exact = simulate(arch, "v1", problem, {"splits": 1}, mode="exact", trace=trace)
        fast = simulate(arch, "v1", problem, {"splits": 1})
        spans: dict[tuple[str, str], list[float]] = defaultdict(lambda: [float("inf"), 0.0])
        for span in trace.spans:
            if span.track.startswith("CTA slot"):
                bounds = spans[span.process, span.track]
                bounds[0], bounds[1] = min(bounds[0], span.start_cycles), max(bounds[1], span.end_cycles)
        per_sm: dict[str, list[float]] = defaultdict(list)
        for (sm, _), (start, end) in spans.items():
            per_sm[sm].append(end - start)
        two = sorted(max(durations) for durations in per_sm.values() if len(durations) == 2)
        median = statistics.median(two)
        print(
            f"d = {headdim}: exact {exact.cycles:,.0f}, fast {fast.cycles:,.0f} ({fast.cycles / exact.cycles:.3f}); "
            f"exact's SMs of two CTAs: their longer CTA {two[0]:,.0f} / {median:,.0f} / {two[-1]:,.0f} cycles "
            f"(min / median / max); fast over that median {fast.cycles / median:.3f}"
        )


if __name__ == "__main__":
    main()
