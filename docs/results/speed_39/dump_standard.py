"""Fast mode's results (cycles, per-kernel cycles, HBM bytes, busy fractions, each as its repr) of standard attention
where `Kernel.alike_but_edges` lets the plan fold one tile of each form: forward and backward at 16k tokens on the
four chips, causal at 4k, PyTorch's kernels (with dropout and causal), and shapes whose last blocks are short
(sequence lengths not multiples of the blocks, keys unlike queries, d = 64), on whole and cut chips; an error is kept
as its line. Run in two checkouts, the files compare bit for bit. `python docs/results/speed_39/dump_standard.py OUT`
"""

import json
import sys

from benchmarks.fast_equality import dump_record
from simgpu import Problem

cases = []
for arch in ("a100", "h100", "h200", "b200"):
    for pass_ in ("fwd", "bwd"):
        cases.append((arch, Problem(1, 16, 16384, 128, pass_=pass_), {}, {}))
        cases.append((arch, Problem(4, 16, 4096, 128, causal=True, pass_=pass_), {}, {}))
for pass_ in ("fwd", "bwd"):
    cases.append(("h200", Problem(1, 16, 16384, 128, pass_=pass_), {"framework": "pytorch"}, {}))
    cases.append(("h200", Problem(4, 16, 4096, 64, causal=True, pass_=pass_), {"framework": "pytorch"}, {}))
    cases.append(("a100", Problem(8, 12, 1024, 64, pass_=pass_), {"framework": "pytorch", "dropout": 0.1}, {}))
    cases.append(("h100", Problem(2, 16, 3000, 128, pass_=pass_), {}, {}))
    cases.append(("b200", Problem(1, 8, 5000, 64, seqlen_k=7777, pass_=pass_), {}, {}))
    cases.append(("a100", Problem(2, 4, 999, 96, causal=True, pass_=pass_), {"framework": "pytorch"}, {}))
    cases.append(("h100", Problem(1, 3, 2000, 64, seqlen_k=1500, pass_=pass_), {}, {"sms": 8}))
    cases.append(("a100", Problem(1, 2, 700, 64, causal=True, pass_=pass_), {"block_m": 64, "block_n": 64}, {}))
    # Row groups of 3 rows straddle query blocks of 64; the softmax read twice (its second pass hits or not).
    options = {"block_m": 64, "block_n": 64, "softmax_warps": 3, "softmax_passes": 2}
    cases.append(("h100", Problem(2, 4, 1000, 64, causal=True, pass_=pass_), options, {}))
    cases.append(("a100", Problem(1, 16, 8192, 128, pass_=pass_), {"softmax_passes": 2}, {}))
results: dict[str, object] = {}
for k, (arch, problem, options, overrides) in enumerate(cases):
    name = f"{k} {arch} {problem.describe()} {options} {overrides}"
    results[name] = dump_record(arch, overrides, "standard", problem, options)
with open(sys.argv[1], "w") as out:
    json.dump(results, out, indent=1)
