"""The candidate's first departure (v2 with FA2's K/V buffers, an H100 cut to 8 SMs, 2 x 2 x 1024, d = 64) under
small what-ifs of the HBM's latency: exact and fast mode's cycles at each. With `exp_pass_parts_candidate.patch`
applied: `PYTHONPATH=CHECKOUT python docs/results/session_66/basin_sensitivity.py` (output: basin_sensitivity.txt)."""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate

BASE = load_arch("h100").hbm.latency_cycles
for scale in (0.97, 0.98, 0.99, 1.0, 1.01, 1.02, 1.03):
    arch = load_arch("h100", {"sms": 8, "hbm.latency_cycles": round(BASE * scale)})
    problem, options = Problem(2, 2, 1024, 64), {"kv_layout": "split"}
    exact = simulate(arch, "v2", problem, options, mode="exact").cycles
    fast = simulate(arch, "v2", problem, options).cycles
    print(f"HBM latency x {scale:.2f}: exact {exact:,.0f} fast {fast:,.0f} ({fast / exact - 1:+.2%})")
