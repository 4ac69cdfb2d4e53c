"""A lead for the next session, not a change: where random small problems leave fast mode furthest from exact mode
now, a kernel of about 1.5 waves with two CTAs an SM (seed 7: the H100 cut to 8 SMs, standard attention's forward at
2 x 3 x 256, d = 64, fp16, `warps=4`, 1.12 of exact mode; seed 8 holds several of the kind). Exact mode's SMs end
their two first CTAs apart (the warp schedulers are greedy: the first placed leads), and the slot that frees first
takes the next tile beside the other; fast mode's list schedule ends an SM's co-resident tiles together at the end of
the slower (`simgpu.fast_schedule`: tiles of one group advance at one rate), and only then starts the next.
Printed: the score kernel's (std_qk) every CTA in exact mode (SM, start, end, time), and the kernel's cycles in
both modes. `python docs/results/claims_56/coresident_ends/std_qk_slots.py > std_qk_slots.txt`"""

from __future__ import annotations

from collections import defaultdict

from simgpu import Problem, load_arch
from simgpu.api import _run, schedule
from simgpu.engine import Engine
from simgpu.fast import plan_fast, thaw
from simgpu.trace import Trace

ARCH = load_arch("h100", {"sms": 8})
PROBLEM = Problem(2, 3, 256, 64, dtype="fp16")
CLOCK_HZ = 1827e6  # the H100's tensor-active clock, where this run settles


def main() -> None:
    kernels = schedule(ARCH, "standard", PROBLEM, {"warps": 4})[:1]
    planned = plan_fast(ARCH, kernels, freeze=True)
    fast = _run(ARCH, kernels, CLOCK_HZ, planned, None, 10**9)
    thaw(planned)
    trace = Trace(sms=range(ARCH.sms), max_spans=10**6)
    exact = Engine(ARCH, CLOCK_HZ, trace).run(kernels)
    spans: dict[tuple[str, str], list[float]] = defaultdict(lambda: [float("inf"), 0.0])
    for span in trace.spans:
        if span.track.startswith("CTA slot"):
            times = spans[(span.process, span.track.split()[2])]
            times[0], times[1] = min(times[0], span.start_cycles), max(times[1], span.end_cycles)
    print(f"{kernels[0].name}: {len(kernels[0].tiles)} tiles, 2 CTAs an SM on {ARCH.sms} SMs")
    print("exact mode, each CTA: SM, CTA, start, end, time")
    for (sm, cta), (start, end) in sorted(spans.items(), key=lambda item: (int(item[0][0].split()[1]), item[1][0])):
        print(f"  {sm}, CTA {cta}: {start:,.0f} -> {end:,.0f}, {end - start:,.0f}")
    print(f"cycles: exact {exact.cycles:,.0f}, fast {fast.cycles:,.0f}, fast / exact {fast.cycles / exact.cycles:.4f}")


if __name__ == "__main__":
    main()
