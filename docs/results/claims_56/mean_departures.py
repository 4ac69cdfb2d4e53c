"""Fast mode's mean departure from exact mode (mean |fast / exact - 1| of cycles) and the cases within 1%, per set,
before the fifty-sixth session's persistent claims (the fifty-fifth session's runs; for seed 7 this session's run at
its start, `before/`) and after them (this folder), as `../spread_load_55/mean_departures.py` reports them.
`python docs/results/claims_56/mean_departures.py > docs/results/claims_56/mean_departures.txt`"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BEFORE = HERE.parent / "spread_load_55"
sys.path.insert(0, str(BEFORE))

from mean_departures import report  # noqa: E402  (the fifty-fifth session's, found on the path above)

SETS = (
    ("grid", BEFORE / "grid/fast_vs_exact.csv", HERE / "grid/fast_vs_exact.csv"),
    ("whole chips", BEFORE / "whole/fast_vs_exact_whole.csv", HERE / "whole/fast_vs_exact_whole.csv"),
    ("causal", BEFORE / "causal/fast_vs_exact_causal.csv", HERE / "causal/fast_vs_exact_causal.csv"),
    ("FA2's shapes", BEFORE / "fa2/fast_vs_exact_fa2.csv", HERE / "fa2/fast_vs_exact_fa2.csv"),
    ("random, seed 0", BEFORE / "random/fast_random.csv", HERE / "random/fast_random.csv"),
    ("random, seed 7", HERE / "before/fast_random_seed7.csv", HERE / "random7/fast_random.csv"),
)

if __name__ == "__main__":
    report(SETS)
