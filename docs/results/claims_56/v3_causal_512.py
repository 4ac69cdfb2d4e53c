"""A departure the grids do not hold, looked at after the claims: v3's persistent causal forward on the whole H100 at
16k tokens, N = 512 (32 x 2048/d heads; 4 query blocks a head, in LPT order), fast over exact mode's cycles, with the
claims' leads and without them. The twenty-second session traced the gap to the first touch of each head's K and V:
the LPT order starts every head's longest tile at once, and exact mode's CTAs take those misses together, where fast
mode's fluid L2 spreads them over the head's tiles (`docs/history.md`, v3's row).
Python modules (`_claim_leads` replaced). `python docs/results/claims_56/v3_causal_512.py > v3_causal_512.txt`"""

from __future__ import annotations

import os

os.environ["SIMGPU_NATIVE"] = "0"

import simgpu.fast_costs as fast_costs
from simgpu import Problem, load_arch, simulate


def main() -> None:
    arch = load_arch("h100")
    for headdim in (128, 64):
        problem = Problem(16384 // 512, 2048 // headdim, 512, headdim, causal=True)
        exact = simulate(arch, "v3", problem, mode="exact")
        fast = simulate(arch, "v3", problem)
        leads = fast_costs._claim_leads
        fast_costs._claim_leads = lambda *args: (0.0, 0.0)  # type: ignore[assignment]
        handed = simulate(arch, "v3", problem)
        fast_costs._claim_leads = leads
        print(
            f"d = {headdim}: exact {exact.cycles:,.0f} cycles; fast over exact {fast.cycles / exact.cycles:.4f} with "
            f"the claims, {handed.cycles / exact.cycles:.4f} without"
        )


if __name__ == "__main__":
    main()
