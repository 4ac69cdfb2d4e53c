"""The replay's miss shares of the case's kernel (`case.py`), by tensor, and by tensor and kind where the replay
counts them apart (`class_shares_not_kept.patch` with SIMGPU_CLASS_SHARES=1: names such as `K@0`).

`SIMGPU_CLASS_SHARES=1 SIMGPU_NATIVE=0 PYTHONPATH=CHECKOUT python docs/results/v3_fast_first_touch_30/class_shares.py`
"""

from __future__ import annotations

from case import validation_case

from simgpu.api import schedule
from simgpu.fast import plan_fast
from simgpu.validation import case_arch

case = validation_case()
arch = case_arch(case)
shares = plan_fast(arch, schedule(arch, "v3", case.problem, case.options)).shares[0]
for name in sorted(shares):
    share = shares[name]
    print(f"{name}: load {share.load:.3f}, load again {share.load_again:.3f}, written back {share.written:.3f}")
