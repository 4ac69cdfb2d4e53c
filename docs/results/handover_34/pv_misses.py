"""Where exact mode's P V kernel misses P: standard attention's forward on the whole A100 (4 x 16 heads, N = 512,
d = 64), the kernel's loads of P in the order exact mode makes them, cut in ten parts of equal counts: per part the
share of loads that missed L2, and the cycles of its first and last load. Fast mode spreads the kernel's misses
evenly over its tiles (`simgpu.units.fluid_l2`). Run from the repository root:
`SIMGPU_NATIVE=0 python docs/results/handover_34/pv_misses.py > docs/results/handover_34/pv_misses.txt`.
"""

from __future__ import annotations

from collections.abc import Hashable

import simgpu.units.l2 as l2_module
from simgpu import Problem, simulate

PARTS = 10


def main() -> None:
    loads: list[tuple[float, bool]] = []  # (cycles, hit) of every load of P
    load = l2_module.L2.load

    def logged(self: l2_module.L2, now: float, key: Hashable, nbytes: float) -> l2_module.Access:
        access = load(self, now, key, nbytes)
        if key[0] == "P":  # type: ignore[index]
            loads.append((now, access.hit))
        return access

    l2_module.L2.load = logged  # type: ignore[method-assign]
    try:
        result = simulate("a100", "standard", Problem(4, 16, 512, 64), mode="exact")
    finally:
        l2_module.L2.load = load  # type: ignore[method-assign]
    print(f"kernel cycles {[round(cycles) for cycles in result.kernel_cycles]}; {len(loads)} loads of P")
    for part in range(PARTS):
        chunk = loads[part * len(loads) // PARTS : (part + 1) * len(loads) // PARTS]
        missed = sum(not hit for _, hit in chunk) / len(chunk)
        print(f"part {part}: missed {missed:.3f}, cycles {chunk[0][0]:.0f}-{chunk[-1][0]:.0f}")


if __name__ == "__main__":
    main()
