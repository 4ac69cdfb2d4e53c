"""Side check of the ninth session: in the model, the two consumers of our FA3 forward with both GEMMs taken out
(FA3_ABLATE 12, `experiments.v3_ablation`), d = 64, ping-pong and overlap on: their softmax ops (row max, exps)
on SM 0, tiles 5-7 of the first CTA, to see whether the two softmaxes run side by side or staggered. Run from the
repository root: `python docs/results/checks_2026-12-02l.py > docs/results/checks_2026-12-02l.txt`."""

from __future__ import annotations

from algorithms.v3.schedule import config, forward_kernel
from experiments.v3_ablation import KERNEL_OPTIONS, PV, S, ablated
from simgpu import Problem, Trace
from simgpu.arch import load_arch
from simgpu.engine import Engine

arch = load_arch("h200").with_overrides({"clock_hz": 1.8e9, "power": None})
problem = Problem(1, 32, 4096, 64, causal=False, dtype="bf16", pass_="fwd")
cfg = config(problem, {**KERNEL_OPTIONS, "pingpong": True, "intra_wg_overlap": True})
trace = Trace(sms=(0,))
Engine(arch, trace=trace).run([ablated(forward_kernel(arch, problem, cfg), S | PV, cfg.stages, 64)])
for consumer in ("consumer0", "consumer1"):
    spans = sorted((s for s in trace.spans if s.track == f"CTA slot 0 {consumer}"), key=lambda s: s.start_cycles)
    print(consumer)
    for span in spans[15:24]:  # per tile: the rescale of O, the row max, the exps
        cycles = span.end_cycles - span.start_cycles
        print(f"  {span.name} {span.start_cycles:.0f} .. {span.end_cycles:.0f} ({cycles:.0f})")
