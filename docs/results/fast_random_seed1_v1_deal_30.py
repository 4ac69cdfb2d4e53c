"""fast_random seed 1's largest miss (`fast_random_seed1_30.csv`: v1's causal forward, 3 x 4 heads, N = 543, d = 128,
on an H100 cut to 4 SMs and 16 MiB of L2; fast / exact 0.852): exact mode's CTAs per SM with their first and last
span, from a trace of all four SMs. Twelve tiles on 8 slots: which SMs take the last four.

`PYTHONPATH=. python docs/results/fast_random_seed1_v1_deal_30.py`
"""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate
from simgpu.trace import Trace

arch = load_arch("h100", {"sms": 4, "l2.capacity_bytes": 16777216})
problem = Problem(3, 4, 543, 128, seqlen_k=543, causal=True, dtype="bf16", pass_="fwd")
trace = Trace(sms=range(4), max_spans=5_000_000)
exact = simulate(arch, "v1", problem, mode="exact", trace=trace)
fast = simulate(arch, "v1", problem)
print(f"fast {fast.cycles:.0f} exact {exact.cycles:.0f} fast / exact {fast.cycles / exact.cycles:.4f}")
extent: dict[tuple[str, str], tuple[float, float]] = {}
for span in trace.spans:
    if span.track.startswith("CTA slot"):
        start, end = extent.get((span.process, span.track), (float("inf"), 0.0))
        extent[span.process, span.track] = (min(start, span.start_cycles), max(end, span.end_cycles))
for (sm, cta), (start, end) in sorted(extent.items(), key=lambda item: item[1]):
    print(f"{sm}, {cta}: {start:.0f} .. {end:.0f}")
