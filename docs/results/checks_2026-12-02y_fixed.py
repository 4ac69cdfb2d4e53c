"""Side check of the twelfth session: checks_2026-12-02y's line fit applied to the measured times and to the model's
predictions (exact mode, `validation/h200/model_vs_measured_v3.csv`): per variant the period per key tile and the
fixed cost per CTA, measured and predicted. Run from the repository root:
`python docs/results/checks_2026-12-02y_fixed.py > docs/results/checks_2026-12-02y_fixed.txt`."""

from __future__ import annotations

import importlib.util
from pathlib import Path

spec = importlib.util.spec_from_file_location("periods", Path(__file__).with_name("checks_2026-12-02y.py"))
assert spec is not None and spec.loader is not None
periods = importlib.util.module_from_spec(spec)
spec.loader.exec_module(periods)

measured, predicted = periods.measured(), periods.measured("predicted_ms")
for (d, pingpong, overlap), (period, fixed) in sorted(measured.items()):
    p_period, p_fixed = predicted[(d, pingpong, overlap)]
    print(f"d={d:3} pingpong={pingpong!s:5} intra_wg_overlap={overlap!s:5}: period measured {period:5.0f}, "
          f"predicted {p_period:5.0f}; fixed per CTA measured {fixed:6.0f}, predicted {p_fixed:6.0f}")  # fmt: skip
