"""The thirty-ninth session's simspeed runs (simspeed_39: before v1's change; simspeed_39b: after it; simspeed_39c:
after v4's too) against the thirty-eighth's two, case by case: the median ratio of
fast-mode times per class of case (standard attention; v2's and v3's forward and backward, whose kernels now declare
their tiles alike where not causal; the FlashAttention backward passes' pre- and postprocessing, in v2, v3 and v4's
backward; v1 and v4's forward, which the session's schedule changes did not touch: the VM's speed that day), and the
slowest cases. `python docs/results/simspeed_39_vs_38.py`
"""

import csv
import statistics
from pathlib import Path

HERE = Path(__file__).resolve().parent


def times(name: str) -> dict[tuple[str, ...], float]:
    with (HERE / name).open(encoding="utf-8") as handle:
        return {
            (r["arch"], r["algo"], r["pass"], r["seqlen"]): float(r["fast_median_s"])
            for r in csv.DictReader(handle)
            if r["fast_median_s"]
        }


def kind(case: tuple[str, ...]) -> str:
    _, algo, pass_, _ = case
    if algo == "standard":
        return "standard"
    if algo in ("v2", "v3"):
        return f"{algo} (declared alike)"
    if algo == "v4" and pass_ != "fwd":
        return "v4 backward (pre/post declared; main kernel in simspeed_39c)"
    if algo == "v1":
        return "v1 (bodies once per kernel in simspeed_39b)"
    return "v4 forward (declared in simspeed_39c)"


for new in ("simspeed_39.csv", "simspeed_39b.csv", "simspeed_39c.csv"):
    after = times(new)
    for run in ("simspeed_38a.csv", "simspeed_38.csv"):
        before = times(run)
        for label in sorted({kind(case) for case in before}):
            ratios = [after[c] / before[c] for c in before if c in after and kind(c) == label]
            print(f"{new} against {run}: {label}: {len(ratios)} cases, median ratio {statistics.median(ratios):.2f}")
    print(f"slowest in {new}:")
    for case, seconds in sorted(after.items(), key=lambda item: -item[1])[:8]:
        print(f"  {' '.join(case)}: {seconds:.3f} s")
