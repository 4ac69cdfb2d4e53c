"""FlashAttention v1's results (cycles, per-kernel cycles, HBM bytes, busy, each as its repr) in fast mode over its
passes, sequence lengths, chips and options, and a few small exact-mode runs, as JSON: run in two checkouts, the
files compare results bit for bit. `python docs/results/speed_39_v1/dump_v1.py OUT.json`
"""

import json
import sys

from benchmarks.fast_equality import result_reprs
from simgpu import Problem, load_arch, simulate
from simgpu.errors import SimgpuError

ARCHS = ("a100", "h100", "h200", "b200")


def cases() -> list[tuple[str, str, Problem, dict, str]]:
    """(label, arch, problem, options, mode) of every case."""
    out = []
    for arch in ARCHS:
        for pass_ in ("fwd", "bwd", "fwd_bwd"):
            for seqlen in (1024, 4096, 16384, 131072):
                out.append((arch, arch, Problem(max(1, 16384 // seqlen), 16, seqlen, 128, pass_=pass_), {}, "fast"))
            for seqlen in (1024, 16384):
                problem = Problem(max(1, 16384 // seqlen), 16, seqlen, 128, causal=True, pass_=pass_)
                out.append((arch, arch, problem, {}, "fast"))
    cut = "h100 sms=8"
    for pass_ in ("fwd", "bwd"):
        for seqlen, causal in ((1024, False), (4096, False), (4096, True), (16384, False)):
            out.append((cut, "h100", Problem(2, 4, seqlen, 128, causal=causal, pass_=pass_), {}, "fast"))
        out.append(("h100", "h100", Problem(4, 8, 2048, 64, pass_=pass_), {}, "fast"))  # d = 64: 256-key blocks
        out.append(("a100", "a100", Problem(2, 8, 3000, 64, seqlen_k=5000, pass_=pass_), {}, "fast"))
        out.append(("a100", "a100", Problem(2, 8, 5000, 128, seqlen_k=3000, causal=True, pass_=pass_), {}, "fast"))
        out.append(("h100", "h100", Problem(2, 8, 4096, 128, pass_=pass_), {"block_m": 32, "block_n": 64}, "fast"))
        out.append(("h100", "h100", Problem(2, 8, 4096, 128, pass_=pass_), {"warps": 2}, "fast"))
        out.append(("a100", "a100", Problem(2, 8, 4096, 64, pass_=pass_), {"sram_bytes": 98304}, "fast"))
        out.append(("h100", "h100", Problem(1, 2, 512, 64, causal=True, pass_=pass_), {}, "exact"))
        out.append(("h100", "h100", Problem(1, 2, 700, 128, pass_=pass_), {}, "exact"))
    for seqlen in (1024, 4096, 16384):
        problem = Problem(max(1, 16384 // seqlen), 16, seqlen, 128)
        out.append(("h100", "h100", problem, {"splits": 4}, "fast"))
        out.append(("a100", "a100", problem, {"splits": 3}, "fast"))
        out.append(("h100", "h100", problem, {"variant": "algorithm1"}, "fast"))
    out.append((cut, "h100", Problem(2, 4, 4096, 128, causal=True), {"splits": 2}, "fast"))
    out.append((cut, "h100", Problem(2, 4, 4096, 128), {"variant": "algorithm1"}, "fast"))
    out.append(("h100", "h100", Problem(1, 2, 512, 64, causal=True), {"splits": 3}, "exact"))
    out.append(("h100", "h100", Problem(1, 2, 512, 128), {"variant": "algorithm1"}, "exact"))
    return out


results = {}
for label, arch_name, problem, options, mode in cases():
    arch = load_arch(arch_name, {"sms": 8}) if label.endswith("sms=8") else load_arch(arch_name)
    key = f"{label} {mode} {problem} {sorted(options.items())}"
    try:
        result = simulate(arch, "v1", problem, options, mode=mode)
    except SimgpuError as error:
        results[key] = {"error": repr(error)}
        continue
    results[key] = result_reprs(result)
with open(sys.argv[1], "w") as out:
    json.dump(results, out, indent=1, sort_keys=True)
