"""Fast mode's mean departure from exact mode (mean |fast / exact - 1| of cycles) and the cases within 1%, per set,
before the fifty-seventh session's miss shares per kind (the fifty-sixth session's runs, `../claims_56/`) and after
them (this folder), and of the variants not kept, as `../spread_load_55/mean_departures.py` reports them.
`python docs/results/first_touch_57/mean_departures.py > docs/results/first_touch_57/mean_departures.txt`"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BEFORE = HERE.parent / "claims_56"
sys.path.insert(0, str(HERE.parent / "spread_load_55"))

from mean_departures import report  # noqa: E402  (the fifty-fifth session's, found on the path above)

NAMES = (
    ("grid", "grid/fast_vs_exact.csv"),
    ("whole chips", "whole/fast_vs_exact_whole.csv"),
    ("causal", "causal/fast_vs_exact_causal.csv"),
    ("FA2's shapes", "fa2/fast_vs_exact_fa2.csv"),
    ("random, seed 0", "random/fast_random.csv", "random0/fast_random.csv"),
    ("random, seed 7", "random7/fast_random.csv"),
    # Not kept (README.md, "Not kept"): labels on every kernel of several kinds, without and with a busy SM's share set
    # by its neighbours' demand (WIN=1, WIN=2).
    ("causal, labels only", "causal/fast_vs_exact_causal.csv", "not_kept/causal/fast_vs_exact_causal.csv"),
    ("causal, labels, WIN=1", "causal/fast_vs_exact_causal.csv", "not_kept/causal_win/fast_vs_exact_causal.csv"),
    ("causal, labels, WIN=2", "causal/fast_vs_exact_causal.csv", "not_kept/causal_win2/fast_vs_exact_causal.csv"),
)


if __name__ == "__main__":
    report(tuple((name, BEFORE / paths[0], HERE / paths[-1]) for name, *paths in NAMES))
