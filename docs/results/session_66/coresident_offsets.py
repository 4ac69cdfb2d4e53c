"""The candidate's first departure looked at in exact mode: v2 with FA2's K/V buffers on an H100 cut to 8 SMs,
2 x 2 x 1024, d = 64 (two CTAs an SM, two rounds), SM 0 traced. Per part count, each CTA on SM 0 (its trace track): when
its first op starts and its last op ends, and the run's cycles. With `exp_pass_parts_candidate.patch` applied:
`PYTHONPATH=CHECKOUT python docs/results/session_66/coresident_offsets.py` (output: coresident_offsets.txt)."""

from __future__ import annotations

from collections import defaultdict

import algorithms._schedule.softmax as softmax
from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.trace import Trace

ARCH = load_arch("h100", {"sms": 8})
PROBLEM = Problem(2, 2, 1024, 64)

for parts in (1, 4, 16, 64):
    softmax.EXP_PASS_PARTS = parts
    trace = Trace(sms=(0,))
    stats = Engine(ARCH, trace=trace).run(list(schedule(ARCH, "v2", PROBLEM, {"kv_layout": "split"})))
    spans: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for span in trace.spans:
        if span.track.startswith("CTA"):
            spans[span.track].append((span.start_cycles, span.end_cycles))
    print(f"{parts:2} parts: {stats.cycles:,.0f} cycles")
    for track in sorted(spans):
        start, end = min(s for s, _ in spans[track]), max(e for _, e in spans[track])
        print(f"  {track}: {start:8,.0f} .. {end:8,.0f} ({end - start:,.0f})")
