"""Results (cycles, per-kernel cycles, HBM bytes, busy fractions, each as its repr) of v4 (FlashAttention 4, B200),
whose forward and backward main kernels run on a `TileGrid` and declare `Kernel.alike_but_edges` where their launch
order is a dense grid's and no mask (nor the deterministic order) makes a tile differ by its index: forward and
backward at 1k-128k tokens (16k tokens per batch, 16 heads, d = 128), causal, short last blocks and odd Q tile counts,
keys unlike queries, d = 64, LPT, the deterministic backward, 2-CTA, varlen batches (`seqlens`), a B200 cut to 8
SMs, and exact mode on small problems. An error is kept as its line. Run in two checkouts, the files compare bit for
bit. `python docs/results/speed_39_v4/dump_v4.py OUT`
"""

import json
import sys

from benchmarks.fast_equality import dump_record
from simgpu import Problem

cases = []
for pass_ in ("fwd", "bwd"):
    for seqlen in (1024, 4096, 16384, 65536, 131072):
        cases.append(({}, Problem(max(1, 16384 // seqlen), 16, seqlen, 128, pass_=pass_), {}, "fast"))
    for seqlen in (1024, 16384, 131072):
        cases.append(({}, Problem(max(1, 16384 // seqlen), 16, seqlen, 128, causal=True, pass_=pass_), {}, "fast"))
    for seqlen, seqlen_k, headdim, causal in (
        (3000, 3000, 128, False),  # 24 Q tiles: the last short
        (3300, 3300, 64, False),  # 26 Q tiles, 13 pairs
        (2900, 2900, 128, False),  # 23 Q tiles: the last pair one tile
        (5000, 7000, 64, True),
        (4000, 1500, 128, False),
        (1500, 4000, 128, False),
    ):
        problem = Problem(max(1, 16384 // seqlen), 16, seqlen, headdim, seqlen_k=seqlen_k, causal=causal, pass_=pass_)
        cases.append(({}, problem, {}, "fast"))
    for options in ({"lpt": True}, {"lpt": False}, {"deterministic": True}, {"two_cta": True}):
        for causal in (False, True):
            cases.append(({}, Problem(4, 16, 4000, 128, causal=causal, pass_=pass_), options, "fast"))
    for causal in (False, True):
        cases.append(({}, Problem(3, 8, 4800, 128, causal=causal, pass_=pass_, seqlens=(3000, 1200, 4800)), {}, "fast"))
        cases.append(({"sms": 8}, Problem(2, 3, 1000, 64, causal=causal, pass_=pass_), {}, "fast"))
        cases.append(({"sms": 8}, Problem(1, 4, 8192, 128, causal=causal, pass_=pass_), {}, "fast"))
    cases.append(({}, Problem(1, 4, 131072, 128, pass_=pass_), {"deterministic": True}, "fast"))
    for options in ({}, {"two_cta": True}, {"deterministic": True}):
        for causal in (False, True):
            cases.append(({"sms": 8}, Problem(1, 2, 700, 64, causal=causal, pass_=pass_), options, "exact"))
results: dict[str, object] = {}
for k, (overrides, problem, options, mode) in enumerate(cases):
    name = f"{k} {problem.describe()} {overrides} {options} {mode}"
    results[name] = dump_record("b200", overrides, "v4", problem, options, mode)
with open(sys.argv[1], "w") as out:
    json.dump(results, out, indent=1)
