"""Fast mode against its own representative unfolded and against exact mode: v1 (default configuration) on the H200
in three cases of one wave (so fast mode's cost is one round of the representative's folded tile at the busy SMs'
share). Per case: fast mode's cycles, the representative's whole tile (no loop folded) run once at each busy setting
fast mode used (CTAs on the SM, bandwidth share), and exact mode's cycles, all at fast mode's clock. Where fast mode
equals the unfolded representative, the fold and its fit are right and what is left is the representative's model
of the other SMs. The whole tile's re-reads are marked as a folded tile's are, so that they take the replay's share
of re-reads. Python modules (fast mode's function watched). Run with the checkout to look at first on the path:
`python docs/results/spread_load_55/fold_vs_unfolded.py > fold_vs_unfolded.txt`"""

from __future__ import annotations

import os

os.environ["SIMGPU_NATIVE"] = "0"

from dataclasses import replace
from typing import Any

import simgpu.fast_costs as fast_costs
from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.fast import plan_fast
from simgpu.fold import FoldSpec, fold_tile
from simgpu.kernel import with_programs

CASES = (
    Problem(16, 16, 1024, 128, causal=True),  # two CTAs an SM
    Problem(4, 16, 4096, 128, causal=True),  # one CTA on 64 SMs
    Problem(2, 16, 4096, 128),  # one CTA on 32 SMs
)


def main() -> None:
    settings: list[tuple[Any, ...]] = []
    representative = fast_costs._representative

    def watched(*args: Any, **kwargs: Any) -> Any:
        settings.append(args[3])
        return representative(*args, **kwargs)

    for problem in CASES:
        settings.clear()
        fast_costs.__dict__["_representative"] = watched
        fast = simulate("h200", "v1", problem)
        fast_costs.__dict__["_representative"] = representative
        arch = load_arch("h200", {"power": None, "clock_hz": fast.clock_hz})
        kernels = schedule(arch, "v1", problem, {})
        shares = plan_fast(arch, kernels).shares[0]
        # The whole tile, every loop kept, its re-reads marked as the folded tile's are (`FoldedTile.marked`).
        whole = fold_tile(kernels[0], kernels[0].tiles[0], FoldSpec(keep=10**9, period=1))
        assert not any(whole.removed)
        kernel = with_programs(kernels[0], whole.marked)
        print(f"{problem.describe()}: fast mode {fast.cycles:,.0f} cycles at {fast.clock_hz / 1e6:.0f} MHz")
        for ctas, burst, share, traffic, _ in dict.fromkeys(s for s in settings if s[2] < 1.0):
            engine = Engine(
                arch, arch.clock_hz, None, 10**10, sms=1, miss_shares=shares, max_ctas_per_sm=ctas,
                bandwidth_share=share, traffic_share=traffic, burst_share=burst / share,
            )  # fmt: skip
            cycles = engine.run([replace(kernel, tiles=range(ctas))]).cycles
            print(f"  representative unfolded, {ctas} CTAs, busy share {share:.4f}: {cycles:,.0f} cycles")
        exact = simulate(arch, "v1", problem, mode="exact")
        print(f"  exact mode {exact.cycles:,.0f} cycles; fast over exact {fast.cycles / exact.cycles:.4f}")


if __name__ == "__main__":
    main()
