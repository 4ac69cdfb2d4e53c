"""Model side of `validation/probes/wgmma_hold.py` and `wgmma_queue.py`: one SM of the H200, one or two consumer
warpgroups issue S (64 x 128 x d) and P V (64 x d x 128, A from registers) back to back, the second `delay` cycles
later; cycles from each one's first MMA to its release, S complete and P V complete (an Alu marker after each).
`docs/results/checks_2026-12-02i.py`'s `wgmma_hold` at more delays.
Run from the repository root (SIMGPU_NATIVE=0 with a patch applied): `python docs/results/wgmma_queue_33/hold_model.py`.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

SETTINGS = ((1, 0), *((2, delay) for delay in (0, 64, 128, 192, 256, 384, 512, 768)))

spec = importlib.util.spec_from_file_location("checks_i", Path(__file__).resolve().parents[1] / "checks_2026-12-02i.py")
assert spec is not None and spec.loader is not None
checks = importlib.util.module_from_spec(spec)
spec.loader.exec_module(checks)
checks.wgmma_hold(SETTINGS)
