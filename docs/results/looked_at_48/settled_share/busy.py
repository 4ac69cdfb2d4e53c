"""v1 on the H100 file at FA2's 16 x 16 x 1024, d = 128 (one split), as the code stands: each mode's cycles and the
HBM's busy share. `python docs/results/looked_at_48/settled_share/busy.py > .../busy.txt`."""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate

arch, problem = load_arch("h100"), Problem(16, 16, 1024, 128)
for mode in ("exact", "fast"):
    result = simulate(arch, "v1", problem, mode=mode)
    print(f"{mode}: {result.cycles:.0f} cycles, HBM busy {result.busy['hbm']:.3f}")
