"""The two rules tried on the default Hopper GEMM (4096^3 bf16, H100), switched by `rules.patch` in a checkout that
has it: FIRSTFIT=1 fits a slot's first tile its own slope for a removed iteration (not the further tile's), EQ=1 gives
further tiles an equal share of the bandwidth with every SM busy. Fast mode over exact mode for each.

`SIMGPU_NATIVE=0 PYTHONPATH=CHECKOUT python docs/results/gemm_fast_gap_30/rules.py`
"""

from __future__ import annotations

import os

from simgpu import load_arch, simulate
from simgpu.problem import GemmProblem

arch = load_arch("h100")
problem = GemmProblem(4096, 4096, 4096, "bf16")
exact = simulate(arch, "gemm", problem, mode="exact").cycles
for name in ("", "FIRSTFIT", "EQ"):
    for switch in ("FIRSTFIT", "EQ"):
        os.environ[switch] = "1" if switch == name else ""
    fast = simulate(arch, "gemm", problem).cycles
    print(f"{name or 'as kept'}: fast {fast:.0f} exact {exact:.0f} fast / exact {fast / exact:.4f}")
