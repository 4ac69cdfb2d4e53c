"""Side check of the tenth session: the model's side of `validation/probes/v1_phases.py`. The v1 schedule's
`variant="algorithm1"` (our kernel's loop) on the H200 (exact mode, the validation sweep's shapes at N = 4096:
B = 4, H = 2048 / d, not causal; clock 1980 MHz), SM 3's role traced. Per step (key block j >= 1 against a query
block), medians of the intervals the probe stamps: the Q copy and its wait, S, the softmax, P~ V_j, what is left
of the working state's wait after P~ V_j (its loads are issued before it), the merge and the stores until the next
step's top (the warps wait while the store path takes the fragment stores), and the period.
Run from the repository root: `python docs/results/checks_2026-12-02r.py > docs/results/checks_2026-12-02r.txt`."""

from __future__ import annotations

import itertools
import statistics

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.trace import Trace

SEQLEN, BLOCK = 4096, 64


def intervals(headdim: int) -> dict[str, float]:
    arch = load_arch("h200").with_overrides({"power": None})
    problem = Problem(4, 2048 // headdim, SEQLEN, headdim, causal=False, dtype="bf16", pass_="fwd")
    trace = Trace(sms=(3,))
    Engine(arch, trace=trace).run(list(schedule(arch, "v1", problem, {"variant": "algorithm1"})))
    spans = sorted((s for s in trace.spans if s.track.endswith("warps")), key=lambda s: s.start_cycles)
    # A step's top: the Q copy, followed by S and the softmax's two passes (the state's last load is followed by P~ V_j
    # and the merge).
    names = [s.name for s in spans]
    tops = [k for k in range(len(names) - 3) if names[k : k + 4] == ["Load", "Mma", "Vector", "Vector"]]
    steps = [spans[a:b] for a, b in itertools.pairwise(tops)][SEQLEN // BLOCK :]  # key blocks 1 on
    out: dict[str, list[float]] = {}
    for step, nxt in itertools.pairwise(steps):
        q, s, row_max, exps = step[:4]
        pv = next(x for x in step[4:] if x.name == "Mma")
        merge = next(x for x in step[4:] if x.name == "Vector")
        for name, value in (("q_wait", s.start_cycles - q.start_cycles), ("s", s.end_cycles - s.start_cycles),
                            ("softmax", exps.end_cycles - row_max.start_cycles),
                            ("pv", pv.end_cycles - pv.start_cycles), ("state_wait", merge.start_cycles - pv.end_cycles),
                            ("merge_store", nxt[0].start_cycles - merge.start_cycles),
                            ("period", nxt[0].start_cycles - q.start_cycles)):  # fmt: skip
            out.setdefault(name, []).append(value)
    return {name: statistics.median(values) for name, values in out.items()}


for d in (64, 128):
    print(f"d={d}: " + ", ".join(f"{name} {value:.0f}" for name, value in intervals(d).items()))
