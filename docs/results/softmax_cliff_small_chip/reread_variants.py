"""Fast mode under the twenty-sixth session's variants of the replay's re-read order, for a checkout whose
`simgpu/replay.py` reads `SIMGPU_STANDIN` (the session's scratch replay; not on main): `old` the lockstep walk, `none`
the re-read order for every kernel without the stand-in, `A` with the stand-in's write-backs charged to its stores,
`B` charged to no access, `G` charged to the wave's accesses by bytes (the kept rule, but for every kernel). Prints,
for the variant in the environment, standard attention's forward on the A100 cut to 33 SMs (3 x 2 heads, 2048
queries, 1475 keys, d = 96; the case of `simgpu.replay._ballast`) per kernel and its HBM reads, and on the whole A100
at 16k tokens (16 heads, d = 128) per kernel; with `--exact`, the cut case in exact mode.
Run: `SIMGPU_NATIVE=0 SIMGPU_STANDIN=A python reread_variants.py [--exact]` in that checkout."""

from __future__ import annotations

import os
import sys

from simgpu import Problem, load_arch, simulate

if __name__ == "__main__":
    cut = load_arch("a100", {"sms": 33})
    problem = Problem(3, 2, 2048, 96, seqlen_k=1475)
    if "--exact" in sys.argv:
        exact = simulate(cut, "standard", problem, mode="exact")
        print("exact, A100 on 33 SMs:", [round(c) for c in exact.kernel_cycles], f"{exact.hbm_read_bytes / 1e6:.2f} MB")
        sys.exit()
    variant = os.environ.get("SIMGPU_STANDIN")
    fast = simulate(cut, "standard", problem)
    print(variant, "A100 on 33 SMs:", [round(c) for c in fast.kernel_cycles], f"{fast.hbm_read_bytes / 1e6:.2f} MB")
    whole = simulate("a100", "standard", Problem(1, 16, 16384, 128))
    print(variant, "A100 16k:", [round(c) for c in whole.kernel_cycles])
