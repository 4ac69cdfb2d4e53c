"""The case behind the trial: v1 on the H100 file at FA2's 16 x 16 x 1024, d = 128 (one split), fast mode over exact
mode, with the patch's PS48 steps of the settled share (0: as main). Run in a checkout with `settled_share.patch`
applied and built: `for k in 0 1 6; do PS48=$k python docs/results/looked_at_48/settled_share/v1_case.py; done`."""

from __future__ import annotations

import os

from simgpu import Problem, load_arch, simulate

arch, problem = load_arch("h100"), Problem(16, 16, 1024, 128)
fast = simulate(arch, "v1", problem)
exact = simulate(arch, "v1", problem, mode="exact")
print(f"PS48={os.environ.get('PS48', '1')}: fast over exact cycles {fast.cycles / exact.cycles:.4f}")
