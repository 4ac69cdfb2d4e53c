"""The case that showed persistent CTAs' claims: `benchmarks.fast_random`'s seed 7 drew v3's persistent causal forward
on an H100 cut to 33 SMs, 3 x 3 heads, 2048 queries over 727 keys, d = 32, fp16 (99 tiles of 0 to 5 key blocks, in
LPT order), fast mode 0.858 of exact mode's cycles. Exact mode's claims per SM (when each CTA drew a further tile
from the queue, and which: (batch, head, query block)) and when its last store ended; then fast mode with the claims'
leads (this session) and without them (each tile handed out as a slot frees, as before), against exact mode.
Python modules (the engine's `_Cta.tile` watched). `python docs/results/claims_56/claims_case.py > claims_case.txt`"""

from __future__ import annotations

import os

os.environ["SIMGPU_NATIVE"] = "0"

from collections import defaultdict
from typing import Any

import simgpu.engine as engine
import simgpu.fast_costs as fast_costs
from simgpu import Problem, load_arch, simulate
from simgpu.trace import Trace

ARCH = load_arch("h100", {"sms": 33})
PROBLEM = Problem(3, 3, 2048, 32, seqlen_k=727, causal=True, dtype="fp16")
OPTIONS = {"persistent": True}


def main() -> None:
    claims: dict[int, list[tuple[Any, float]]] = defaultdict(list)
    tile = engine._Cta.tile

    def watched(cta: Any, k: int, now: float, noted: list[float]) -> Any:
        drawn = len(cta.tiles)
        answer = tile(cta, k, now, noted)
        if len(cta.tiles) > drawn:
            claims[cta.sm.index].append((cta.tiles[k], now))
        return answer

    engine._Cta.tile = watched  # type: ignore[method-assign]
    trace = Trace(sms=range(ARCH.sms), max_spans=10**6)
    exact = simulate(ARCH, "v3", PROBLEM, OPTIONS, mode="exact", trace=trace)
    engine._Cta.tile = tile  # type: ignore[method-assign]
    last_store: dict[int, float] = defaultdict(float)
    for span in trace.spans:
        if span.name == "Store" and span.process.startswith("SM "):
            sm = int(span.process.split()[1])
            last_store[sm] = max(last_store[sm], span.end_cycles)
    print(f"exact mode: {exact.cycles:,.0f} cycles; per SM, its further tiles drawn (tile at cycle) and its last store")
    for sm in range(ARCH.sms):
        drawn = ", ".join(f"{tile_} at {now:,.0f}" for tile_, now in claims[sm])
        print(f"  SM {sm:2d}: {drawn or 'none'}; last store {last_store[sm]:,.0f}")
    fast = simulate(ARCH, "v3", PROBLEM, OPTIONS)
    leads = fast_costs._claim_leads
    fast_costs._claim_leads = lambda *args: (0.0, 0.0)  # type: ignore[assignment]
    handed = simulate(ARCH, "v3", PROBLEM, OPTIONS)
    fast_costs._claim_leads = leads
    for label, run in (("tiles drawn at the claims' leads", fast), ("tiles handed out as slots free  ", handed)):
        print(f"fast mode, {label}: {run.cycles:,.0f} cycles, {run.cycles / exact.cycles:.4f}")


if __name__ == "__main__":
    main()
