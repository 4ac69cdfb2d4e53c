"""The random case (seed 7, #589) that the cap was tried on: v1's forward on an H200 cut to 4 SMs and 4 MiB of L2,
2 x 3 heads, 2048 queries over 470 keys, d = 96, one split. Fast mode's class costs with its loops folded (base and
a removed iteration per loop: top, inner, first key block's, last key block's) and with nothing folded, per CTAs on
the SM and busy or alone (`../../spread_load_55/two_wave_costs.py`'s report), then exact mode's cycles. Python
modules (fast mode's function watched).
`python docs/results/claims_56/not_kept_alone_cap/fit_costs.py > fit_costs.txt` (in that folder)"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "spread_load_55"))

from two_wave_costs import report  # the fifty-fifth session's, found on the path above (it loads Python modules)

from simgpu import Problem, load_arch, simulate

ARCH = load_arch("h200", {"sms": 4, "l2.capacity_bytes": 4194304})
PROBLEM = Problem(2, 3, 2048, 96, seqlen_k=470)
OPTIONS = {"splits": 1}

if __name__ == "__main__":
    report(ARCH, "v1", PROBLEM, OPTIONS)
    print(f"exact mode: {simulate(ARCH, 'v1', PROBLEM, OPTIONS, mode='exact').cycles:,.0f} cycles")
