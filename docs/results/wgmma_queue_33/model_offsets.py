"""The model's side of `v3_offset_trace`: one SM of the H200 traced (exact mode, N = 4096, B = 4, as
`docs/results/checks_2026-12-02y.py`), the period per key tile (median interval between consumer 0's S GEMMs) and
the offset of consumer 1's S GEMM after consumer 0's, every third key tile from the third; then consumer 0's unit
ops over one steady key tile (name, start after its S GEMM, cycles).
Run from the repository root: `python docs/results/wgmma_queue_33/model_offsets.py D PINGPONG(T/F) OVERLAP(T/F)`.
"""

import itertools
import statistics
import sys

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.trace import Trace


def run(d, pp, ov, overrides=None):
    arch = load_arch("h200").with_overrides({"power": None, **(overrides or {})})
    problem = Problem(4, 2048 // d, 4096, d, causal=False, dtype="bf16", pass_="fwd")
    options = {
        "block_m": 128,
        "block_n": 128,
        "pingpong": pp,
        "intra_wg_overlap": ov,
        "persistent": False,
        "epilogue": "registers",
    }
    trace = Trace(sms=(3,))
    Engine(arch, trace=trace).run(list(schedule(arch, "v3", problem, options)))
    tracks = {}
    for c in ("consumer0", "consumer1"):
        track = min(s.track for s in trace.spans if s.track.endswith(c))
        spans = sorted((s for s in trace.spans if s.track == track), key=lambda s: s.start_cycles)
        tracks[c] = spans
    g = {c: [s for s in sp if s.name == "Mma"] for c, sp in tracks.items()}
    per = round(len(g["consumer0"]) / 32)
    s0 = [s.start_cycles for s in g["consumer0"]][::per]
    s1 = [s.start_cycles for s in g["consumer1"]][::per]
    offs = [b - a for a, b in zip(s0, s1, strict=False)]
    period = statistics.median([b - a for a, b in itertools.pairwise(s0)][4:-4])
    # op durations in one steady tile of consumer0
    t0 = s0[10]
    t1 = s0[11]
    ops = [
        (s.name, round(s.start_cycles - t0), round(s.end_cycles - s.start_cycles))
        for s in tracks["consumer0"]
        if t0 <= s.start_cycles < t1
    ]
    print(f"d={d} pp={pp} ov={ov}: period {period:.0f}, offsets c1-c0 {[round(o) for o in offs[2:30:3]]}")
    print("   c0 ops:", ops)


d, pp, ov = int(sys.argv[1]), sys.argv[2] == "T", sys.argv[3] == "T"
run(d, pp, ov)
