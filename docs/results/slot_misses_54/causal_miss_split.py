"""How fast mode's representative SM splits the re-reads' misses between its two CTAs: the H200's v1 forward, causal,
16 x 32 x 1024, d = 64 (the causal grid's case that moved most, 0.994 -> 0.942 of exact mode), where 83% of the
re-reads of Q, LSE and O_acc miss. Per run with every SM busy (two CTAs), each CTA's share of its re-reads that
missed. Run it with the checkout to look at on the path (the fifty-third session's, then this one's):
`python docs/results/slot_misses_54/causal_miss_split.py > causal_miss_split.txt`"""

from __future__ import annotations

import os

os.environ["SIMGPU_NATIVE"] = "0"  # the Python modules, so that the representative's accesses can be watched

import collections
from typing import Any

import simgpu.fast_costs as fast_costs
import simgpu.sm as sm
import simgpu.units.fluid_l2 as fluid_l2
from simgpu import Problem, simulate

PROBLEM = Problem(16, 32, 1024, 64, causal=True)


def main() -> None:
    current: list[int] = [0]
    counts: dict[tuple[int, bool], int] = collections.Counter()
    execute, access, representative = sm.Sm.execute, fluid_l2.FluidL2._access, fast_costs._representative

    def watched_execute(self: Any, op: Any, now: float, warps: int, role: object = None) -> float:
        cta = getattr(role, "cta", None)
        current[0] = cta.index if cta is not None else -1
        return execute(self, op, now, warps, role)

    def watched_access(self: Any, now: float, l2_done: float, key: Any, nbytes: float, kind: int, *rest: Any) -> Any:
        result = access(self, now, l2_done, key, nbytes, kind, *rest)
        if isinstance(key[1] if isinstance(key, tuple) else getattr(key, "tile", None), fluid_l2.Retouch):
            counts[current[0], result.hit] += 1
        return result

    def watched_representative(*args: Any, **kwargs: Any) -> Any:
        counts.clear()
        result = representative(*args, **kwargs)
        ctas, _, share, _, _ = args[3]
        if ctas == 2 and share < 1.0:
            split = []
            for cta in sorted({cta for cta, _ in counts}):
                missed, hit = counts[cta, False], counts[cta, True]
                split.append(f"CTA {cta} {missed / (missed + hit):.3f}")
            print(f"busy, 2 CTAs, a run of {len(split)} tiles: re-reads missed by {', '.join(split)}")
        return result

    sm.Sm.execute = watched_execute  # type: ignore[method-assign]
    fluid_l2.FluidL2._access = watched_access  # type: ignore[method-assign]
    fast_costs.__dict__["_representative"] = watched_representative
    print(f"fast mode: {simulate('h200', 'v1', PROBLEM).cycles:,.0f} cycles")


if __name__ == "__main__":
    main()
