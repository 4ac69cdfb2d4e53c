"""Fast mode's results (cycles, per-kernel cycles, HBM bytes, busy fractions, each as its repr) for
`benchmarks.fast_ab`'s default grid and standard attention's forward at 16k on the H100, as JSON: run in two
checkouts, the files compare results bit for bit. `python docs/results/speed_38/dump.py OUT.json`
"""

import json
import sys

from benchmarks.fast_ab import cases
from benchmarks.fast_equality import result_reprs
from simgpu import Problem, load_arch, simulate

grid = cases("ab")
if ("h100", "standard", "fwd", 16384) not in grid:
    grid.append(("h100", "standard", "fwd", 16384))
results = {}
for arch, algo, pass_, seqlen in grid:
    result = simulate(load_arch(arch), algo, Problem(max(1, 16384 // seqlen), 16, seqlen, 128, pass_=pass_))
    results[f"{arch} {algo} {pass_} {seqlen}"] = result_reprs(result)
with open(sys.argv[1], "w") as out:
    json.dump(results, out, indent=1, sort_keys=True)
