"""The loaded-latency what-if of `tests/core/test_fast.py`: v3's forward on an H200 cut to 16 SMs, 4 x 16 x 512,
d = 64, with the HBM's loaded latency raised by 2,000 cycles, each mode's slowdown. `python
docs/results/session_67/loaded_latency.py` (`loaded_latency.txt`: main, then the change)."""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate

for causal in (False, True):
    problem = Problem(4, 16, 512, 64, causal=causal)
    cells = []
    for mode in ("fast", "exact"):
        before, after = (
            simulate(
                load_arch("h200", {"sms": 16, "hbm.loaded_latency.extra_cycles": extra}), "v3", problem, mode=mode
            ).cycles
            for extra in (0, 2000)
        )
        cells.append(f"{mode} {before:.0f} -> {after:.0f} ({after / before - 1:+.2%})")
    print(f"causal={causal}: " + "; ".join(cells))
