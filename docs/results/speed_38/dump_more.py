"""Fast and exact mode's results (cycles, per-kernel cycles, HBM bytes, busy fractions, each as its repr) of backward
passes where the schedules' shared step ops could differ from ops built per key block: causal v2, v3 and v4 at 1k and
8k, v4 deterministic causal and not, a varlen v4 batch (v2's refusal of one too), and small causal problems on 8 SMs
in exact and fast mode; an error is kept as its line. Run in two checkouts, the files compare bit for bit.
`python docs/results/speed_38/dump_more.py OUT.json`
"""

import json
import sys

from benchmarks.fast_equality import dump_record
from simgpu import Problem

cases = []
for arch, algo in (("a100", "v2"), ("h100", "v2"), ("h200", "v3"), ("b200", "v4"), ("b200", "v2")):
    for n in (1024, 8192):
        cases.append((arch, algo, Problem(max(1, 16384 // n), 16, n, 128, causal=True, pass_="bwd"), {}, "fast", {}))
for causal in (True, False):
    problem = Problem(2, 16, 4096, 128, causal=causal, pass_="bwd")
    cases.append(("b200", "v4", problem, {"deterministic": True}, "fast", {}))
for algo in ("v4", "v2"):
    problem = Problem.varlen(8, (300, 1000, 2048, 77), 128, causal=True, pass_="bwd")
    cases.append(("b200" if algo == "v4" else "h100", algo, problem, {}, "fast", {}))
for arch, algo in (("a100", "v2"), ("h200", "v3"), ("b200", "v4")):
    cases.append((arch, algo, Problem(1, 2, 1536, 128, causal=True, pass_="bwd"), {}, "exact", {"sms": 8}))
    cases.append((arch, algo, Problem(1, 2, 1000, 64, causal=True, pass_="bwd"), {}, "fast", {"sms": 8}))
results: dict[str, object] = {}
for k, (arch, algo, problem, options, mode, overrides) in enumerate(cases):
    name = f"{k} {arch} {algo} {mode}"
    results[name] = dump_record(arch, overrides, algo, problem, options, mode)
with open(sys.argv[1], "w") as out:
    json.dump(results, out, indent=1)
