"""Fast mode's results (cycles, per-kernel cycles, HBM bytes, busy fractions, each as its repr) of FlashAttention
backward passes, whose pre- and postprocessing kernels declare `Kernel.alike_but_edges`: v2, v3 and v4 at sequence
lengths whose last Q blocks are short, causal and not, d = 64 and 128, at 128k tokens, and on a cut chip; an error is
kept as its line. Run in two checkouts, the files compare bit for bit. `python docs/results/speed_39/dump_flash.py OUT`
"""

import json
import sys

from simgpu import Problem, load_arch, simulate

cases = []
for arch, algo in (("a100", "v2"), ("h100", "v2"), ("h100", "v3"), ("h200", "v3"), ("b200", "v4")):
    for seqlen, headdim, causal in ((3000, 128, False), (5000, 64, True), (131072, 128, False)):
        cases.append(
            (arch, algo, Problem(max(1, 16384 // seqlen), 16, seqlen, headdim, causal=causal, pass_="bwd"), {})
        )
    cases.append((arch, algo, Problem(2, 3, 1000, 64, causal=True, pass_="bwd"), {"sms": 8}))
results: dict[str, object] = {}
for k, (arch, algo, problem, overrides) in enumerate(cases):
    name = f"{k} {arch} {algo} {problem.describe()} {overrides}"
    try:
        result = simulate(load_arch(arch, overrides), algo, problem)
    except Exception as error:  # a refusal is a result too: both checkouts must give it
        results[name] = f"error {type(error).__name__}: {error}"
        continue
    results[name] = [
        repr(result.cycles),
        [repr(cycles) for cycles in result.kernel_cycles],
        repr(result.hbm_read_bytes),
        repr(result.hbm_write_bytes),
        repr(result.busy),
    ]
with open(sys.argv[1], "w") as out:
    json.dump(results, out, indent=1)
