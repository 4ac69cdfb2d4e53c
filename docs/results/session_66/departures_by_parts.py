"""Fast mode over exact mode's cycles in the candidate's failing fast-against-exact stories, by the number of parts of
the exp pass (`exp_pass_parts_candidate.patch` applied): v2 with FA2's K/V buffers on an H100 cut to 8 SMs at
2 x 2 x 1024, d = 64 (`tests/schedules/test_v2.py`), and v1 as our kernel loops on the whole H200 at 32 x 32 x 512,
d = 64 (`tests/core/test_fast.py`). Run from a checkout with the patch applied (output: `departures_by_parts.txt`):
`PYTHONPATH=CHECKOUT python docs/results/session_66/departures_by_parts.py`."""

from __future__ import annotations

import algorithms._schedule.softmax as softmax
from simgpu import Problem, load_arch, simulate

CASES = (
    ("v2 split, H100 on 8 SMs", load_arch("h100", {"sms": 8}), "v2", Problem(2, 2, 1024, 64), {"kv_layout": "split"}),
    (
        "v1 algorithm1, H200",
        load_arch("h200"),
        "v1",
        Problem(32, 32, 512, 64),
        {"block_m": 64, "block_n": 64, "warps": 4, "variant": "algorithm1"},
    ),
)

for parts in (1, 4, 8, 16, 24, 64):
    softmax.EXP_PASS_PARTS = parts
    ratios = []
    for name, arch, algo, problem, options in CASES:
        exact = simulate(arch, algo, problem, options, mode="exact").cycles
        fast = simulate(arch, algo, problem, options).cycles
        ratios.append(f"{name}: fast {fast:,.0f} exact {exact:,.0f} ({fast / exact - 1:+.2%})")
    print(f"{parts:2} parts: " + "; ".join(ratios), flush=True)
