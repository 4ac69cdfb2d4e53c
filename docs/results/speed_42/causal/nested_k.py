import sys
from dataclasses import replace

import simgpu.fold as fold

K = int(sys.argv[1])
orig = fold.FoldSpec.variant


def variant(self, side):
    if side in fold.NESTED_SIDES:
        kinds = {fold.NESTED_SIDES.index(side), fold.NESTED_SIDES.index("first")}
        return replace(self, extra=tuple(e + K * (k in kinds) for k, e in enumerate(self.extra)))
    return orig(self, side)


fold.FoldSpec.variant = variant
from scaled import scaled_h200  # noqa: E402 (after the patch, as the run had it)

from simgpu import Problem, simulate  # noqa: E402

for sms, heads in ((8, 15), (8, 16), (16, 31), (16, 32)):
    arch = scaled_h200(sms)
    p = Problem(1, heads, 1024, 128, causal=True)
    f = simulate(arch, "v1", p)
    e = simulate(arch, "v1", p, mode="exact")
    print("K", K, sms, heads, f"fast/exact {f.cycles / e.cycles:.4f}", flush=True)
