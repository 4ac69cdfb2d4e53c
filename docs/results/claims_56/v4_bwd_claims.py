"""The two v4 causal backward cases the claims moved away from exact mode (seed 0: the B200 on 16 SMs at 2 x 3 x
1024, d = 128; seed 7: on 10 SMs at 3 x 4 x 519, fp16). For the persistent main kernel: exact mode's first claim on
each SM, in cycles after its CTA started its first tile; fast mode's class costs (a first tile's time and its
claim's lead, so its claim at time - lead after the start); then the whole run's fast over exact cycles with and
without the leads. Python modules (the engine's `_Cta.tile` watched).
`python docs/results/claims_56/v4_bwd_claims.py > docs/results/claims_56/v4_bwd_claims.txt`"""

from __future__ import annotations

import os

os.environ["SIMGPU_NATIVE"] = "0"

from typing import Any

import simgpu.engine as engine
import simgpu.fast as fast
import simgpu.fast_costs as fast_costs
from simgpu import Problem, load_arch, simulate

CASES = (
    ("seed 0", load_arch("b200", {"sms": 16}), Problem(2, 3, 1024, 128, causal=True, pass_="bwd")),
    ("seed 7", load_arch("b200", {"sms": 10}), Problem(3, 4, 519, 128, causal=True, pass_="bwd", dtype="fp16")),
)


def case(label: str, arch: Any, problem: Problem) -> None:
    """One case: exact mode's first claims, fast mode's first tiles and leads, fast over exact with and without."""
    tile, class_costs = engine._Cta.tile, fast.class_costs
    first_claims: dict[int, tuple[Any, float]] = {}
    started: dict[Any, float] = {}  # per CTA (held, so that no other takes its place), its first tile's start

    def watched(cta: Any, k: int, now: float, noted: list[float]) -> Any:
        started.setdefault(cta, now)  # its roles first ask as it starts
        drawn = len(cta.tiles)
        answer = tile(cta, k, now, noted)
        if len(cta.tiles) > drawn and cta.queue is not None:
            first_claims.setdefault(cta.sm.index, (cta.tiles[0], now - started[cta]))
        return answer

    seen: list[Any] = []

    def costs(*args: Any, **kwargs: Any) -> Any:
        made = class_costs(*args, **kwargs)
        seen.append((args[1], made[0]))
        return made

    engine._Cta.tile = watched  # type: ignore[method-assign]
    exact = simulate(arch, "v4", problem, mode="exact")
    engine._Cta.tile = tile  # type: ignore[method-assign]
    fast.__dict__["class_costs"] = costs
    with_leads = simulate(arch, "v4", problem)
    fast.__dict__["class_costs"] = class_costs
    leads = fast_costs._claim_leads
    fast_costs._claim_leads = lambda *args: (0.0, 0.0)  # type: ignore[assignment]
    without = simulate(arch, "v4", problem)
    fast_costs._claim_leads = leads
    print(f"{label}: {arch.sms} SMs, {problem.describe()}")
    print("  exact mode, each SM's first claim: (its first tile) at cycles after that tile's start")
    for sm, (first, after) in sorted(first_claims.items()):
        print(f"    SM {sm:2d}: {first} at {after:,.0f}")
    plan, kind_costs = next((plan, made) for plan, made in seen if plan.kernel.persistent)
    print("  fast mode, the main kernel's first tiles by kind (key block): time, lead, claim after the start")
    for kind, settings in kind_costs.items():
        vector = settings[0].of(plan.removed[plan.kinds.index(kind)])
        print(f"    kind {kind}: {vector[0]:,.0f}, {vector[-2]:,.0f}, {vector[0] - vector[-2]:,.0f}")
    print(
        f"  fast over exact: {with_leads.cycles / exact.cycles:.4f} with the leads, "
        f"{without.cycles / exact.cycles:.4f} without"
    )


def main() -> None:
    for label, arch, problem in CASES:
        case(label, arch, problem)


if __name__ == "__main__":
    main()
