"""Fast mode against exact mode as the barriers' latency (`latency.cta_sync_cycles`, what-ifs) moves, for the v1
cases the fifty-second session's barriers moved most: v1's causal forward on the whole H200 at 16 x 32 x 1k, d = 64
(fast over exact 0.994 -> 1.034 at 106 cycles) and its split forward on an A100 cut to 16 SMs with 4 MiB of L2
(`tests/core/test_fast.py::test_splits_launched_apart_replay_as_heads_of_their_own`'s shape). For the second, also
where each SM's last tile ends in exact mode (a trace of every SM): the kernel ends at the slowest. Run from the
repository root: `python docs/results/cta_sync_52/barrier_sweep.py > docs/results/cta_sync_52/barrier_sweep.txt`
(about two minutes)."""

from __future__ import annotations

import statistics
from collections import defaultdict

from simgpu import Problem, load_arch, simulate
from simgpu.trace import Trace

CYCLES = (0, 30, 60, 106, 150, 200)


def slowest_sm(fast_cycles: float, exact_cycles: float, trace: Trace) -> str:
    """Each SM's last CTA end in the trace: min, median and max, and the kernel's end."""
    ends: dict[str, float] = defaultdict(float)
    for span in trace.spans:
        if span.track.startswith("CTA slot"):
            ends[span.process] = max(ends[span.process], span.end_cycles)
    ordered = sorted(ends.values())
    return (
        f"SMs' last tile ends: min {ordered[0]:,.0f}, median {statistics.median(ordered):,.0f}, "
        f"max {ordered[-1]:,.0f} (exact {exact_cycles:,.0f}, fast {fast_cycles:,.0f})"
    )


def main() -> None:
    print("# v1 causal forward, whole H200, 16 x 32 x 1024, d = 64")
    h200 = load_arch("h200")
    causal = Problem(16, 32, 1024, 64, causal=True)
    for cycles in CYCLES:
        arch = h200.with_overrides({"latency.cta_sync_cycles": cycles})
        fast, exact = simulate(arch, "v1", causal), simulate(arch, "v1", causal, mode="exact")
        ratio = fast.cycles / exact.cycles
        print(f"cta_sync_cycles {cycles:3}: fast {fast.cycles:,.0f}, exact {exact.cycles:,.0f}, {ratio:.4f}")
    print("# v1 split forward (4 splits), A100 cut to 16 SMs and 4 MiB of L2, 4 x 16 x 512, d = 64")
    cut = load_arch("a100", {"sms": 16, "l2.capacity_bytes": 4 * 2**20})
    split, options = Problem(4, 16, 512, 64), {"splits": 4}
    for cycles in CYCLES:
        arch = cut.with_overrides({"latency.cta_sync_cycles": cycles})
        fast = simulate(arch, "v1", split, options)
        trace = Trace(sms=range(arch.sms), max_spans=10**7)
        exact = simulate(arch, "v1", split, options, mode="exact", trace=trace)
        print(
            f"cta_sync_cycles {cycles:3}: fast over exact {fast.cycles / exact.cycles:.4f};",
            slowest_sm(fast.cycles, exact.cycles, trace),
        )


if __name__ == "__main__":
    main()
