"""v2's forward on an H100 with 33x slower HBM (1e11 B/s, the xfail `v2-slow-hbm`): fast and exact mode, and the
bandwidth shares fast mode gives the busy SMs (`simgpu.fast_costs._busy_shares`: from the demand of a lone run).

`SIMGPU_NATIVE=0 PYTHONPATH=. python docs/results/slow_hbm_shares_29.py` (sources: the shares are read by wrapping a
function that compiled code would call directly); output in `slow_hbm_shares_29.txt`.
"""

from __future__ import annotations

import simgpu.fast_costs as fast_costs
from simgpu import Problem, load_arch, simulate

_shares = fast_costs._busy_shares


def _reported(sms: int, demand: float) -> tuple[float, float]:
    shares = _shares(sms, demand)
    print(f"  busy SMs {sms}, lone demand {demand:.4f}, busy x demand {sms * demand:.2f} -> shares {shares}")
    return shares


def main() -> None:
    fast_costs._busy_shares = _reported
    arch = load_arch("h100", {"hbm.bandwidth_bytes_per_s": 1e11})
    for seqlen, heads in ((1024, 4), (1024, 16), (2048, 4), (4096, 4)):
        problem = Problem(1, heads, seqlen, 128)
        print(f"N = {seqlen}, {heads} heads:")
        fast = simulate(arch, "v2", problem)
        exact = simulate(arch, "v2", problem, mode="exact")
        print(
            f"  exact {exact.cycles:.0f} cycles (HBM {exact.busy['hbm']:.3f} busy), fast {fast.cycles:.0f} "
            f"({fast.busy['hbm']:.3f}), fast / exact {fast.cycles / exact.cycles:.3f}"
        )


if __name__ == "__main__":
    main()
