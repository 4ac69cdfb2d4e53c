"""Four slower-HBM what-ifs, fast mode over exact mode, with the rule as kept and with the processor-sharing share
(`ps_share.patch` applied, switched on by PS=1; run as Python, SIMGPU_NATIVE=0, in a checkout with the patch).

`SIMGPU_NATIVE=0 PYTHONPATH=CHECKOUT python docs/results/ps_share_not_kept_30/slowhbm_cases.py`
"""

from __future__ import annotations

import os

from simgpu import Problem, load_arch, simulate

CASES = (
    ("h100", {"hbm.bandwidth_bytes_per_s": 1e11}, "v2", Problem(1, 4, 1024, 128)),
    ("h100", {"hbm.bandwidth_bytes_per_s": 8e11}, "v3", Problem(2, 16, 1024, 128)),
    ("h100", {"hbm.bandwidth_bytes_per_s": 4e11}, "v2", Problem(2, 8, 1024, 128)),
    ("a100", {"hbm.bandwidth_bytes_per_s": 2e11}, "v2", Problem(2, 8, 512, 64)),
)
for arch_name, overrides, algo, problem in CASES:
    arch = load_arch(arch_name, overrides)
    exact = simulate(arch, algo, problem, mode="exact").cycles
    ratios = []
    for switch in ("", "1"):
        os.environ["PS"] = switch
        ratios.append(simulate(arch, algo, problem).cycles / exact)
    print(f"{arch_name} {overrides} {algo} {problem.batch}x{problem.heads} N={problem.seqlen_q} d={problem.headdim}:")
    print(f"  fast / exact as kept {ratios[0]:.3f}, processor sharing {ratios[1]:.3f}")
