"""Fast mode's results (cycles, per-kernel cycles, HBM bytes, busy fractions, each as its repr) of FlashAttention
backward passes, whose pre- and postprocessing kernels declare `Kernel.alike_but_edges` (and v2's and v3's main
kernels where not causal): v2, v3 and v4 at sequence lengths whose last Q blocks are short, causal and not, d = 64 and
128, at 128k tokens, and on a cut chip, and v2 in both its layouts with keys unlike queries; and v2's and v3's forward
passes (their main kernels declare it where not causal). An error is kept as its line. Run in two checkouts, the
files compare bit for bit. `python docs/results/speed_39/dump_flash.py OUT`
"""

import json
import sys

from benchmarks.fast_equality import dump_record
from simgpu import Problem

cases = []
for arch, algo in (("a100", "v2"), ("h100", "v2"), ("h100", "v3"), ("h200", "v3"), ("b200", "v4")):
    for seqlen, headdim, causal in ((3000, 128, False), (5000, 64, True), (131072, 128, False)):
        problem = Problem(max(1, 16384 // seqlen), 16, seqlen, headdim, causal=causal, pass_="bwd")
        cases.append((arch, algo, problem, {}, {}))
    cases.append((arch, algo, Problem(2, 3, 1000, 64, causal=True, pass_="bwd"), {"sms": 8}, {}))
for arch, seqlen, seqlen_k, layout, overrides in (
    ("h100", 3000, 3000, "ring", {}),
    ("a100", 131072, 131072, "ring", {}),
    ("h200", 2000, 5000, "fa2", {}),
    ("b200", 4096, 1000, "ring", {"sms": 8}),
):
    problem = Problem(max(1, 16384 // seqlen), 16, seqlen, 128, seqlen_k=seqlen_k, pass_="bwd")
    cases.append((arch, "v2", problem, overrides, {"bwd_layout": layout}))
# The forward passes of v2 and v3, whose main kernels declare it where not causal: short last blocks, keys unlike
# queries, v3's kernel variants (no ping-pong or overlap; no producer, persistent; LPT's order), a cut chip.
for arch, algo in (("a100", "v2"), ("h100", "v2"), ("h100", "v3"), ("h200", "v3")):
    for seqlen, seqlen_k, headdim, causal in (
        (3000, 3000, 128, False),
        (5000, 7000, 64, True),
        (131072, 131072, 128, False),
    ):
        problem = Problem(max(1, 16384 // seqlen), 16, seqlen, headdim, seqlen_k=seqlen_k, causal=causal)
        cases.append((arch, algo, problem, {}, {}))
    cases.append((arch, algo, Problem(2, 3, 1000, 64, seqlen_k=1500), {"sms": 8}, {}))
for options in (
    {"pingpong": False, "intra_wg_overlap": False},
    {"warp_specialization": False, "persistent": True},
    {"lpt": True, "persistent": True},
):
    cases.append(("h100", "v3", Problem(4, 16, 4000, 128), {}, options))
results: dict[str, object] = {}
for k, (arch, algo, problem, overrides, options) in enumerate(cases):
    name = f"{k} {arch} {algo} {problem.describe()} {overrides} {options}"
    results[name] = dump_record(arch, overrides, algo, problem, options)
with open(sys.argv[1], "w") as out:
    json.dump(results, out, indent=1)
