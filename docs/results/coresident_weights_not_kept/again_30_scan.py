"""The v2 case of `again_30.txt` (A100 cut to 16 SMs, 2 x 4 heads, N = 2048 queries, 935 keys, d = 128, causal,
block_n = 32) in fast mode over exact mode with every co-resident load ratio multiplied by MUL (capped at 1), in a
checkout with `again_30_scan.patch` (`again_30.patch` plus the MUL switch), run as Python.

`SIMGPU_NATIVE=0 PYTHONPATH=CHECKOUT python docs/results/coresident_weights_not_kept/again_30_scan.py`
"""

from __future__ import annotations

import os

from simgpu import Problem, load_arch, simulate

arch = load_arch("a100", {"sms": 16})
problem = Problem(2, 4, 2048, 128, seqlen_k=935, causal=True, dtype="bf16", pass_="fwd")
options = {"block_n": 32, "bwd_layout": "ring"}
exact = simulate(arch, "v2", problem, options, mode="exact").cycles
for scale in ("0", "0.5", "1", "1.2", "1.4", "2", "3"):
    os.environ["MUL"] = scale
    print(f"m = {scale}: fast / exact {simulate(arch, 'v2', problem, options).cycles / exact:.3f}")
