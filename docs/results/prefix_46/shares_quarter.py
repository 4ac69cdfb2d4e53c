"""The miss shares that time standard attention's forward at 16k tokens (1 x 16 heads, d = 128), its head
replayed whole, against those of prefix replays of an eighth and a quarter of every kernel's tiles: the larger
prefix's own shares, and the two prefixes' counts extrapolated to the whole head
(`simgpu.replay.extrapolated_shares`). These are the prefixes fast mode takes on the H100 and the H200; the A100
takes none (its P V kernel's 128 tiles of a head take two waves of 108 SMs, the second reading V again): they are
forced here. Runs on the sources (`SIMGPU_NATIVE=0`).

    python docs/results/prefix_46/shares_quarter.py ARCH > docs/results/prefix_46/shares_quarter_ARCH.txt
"""

from __future__ import annotations

import os
import sys

os.environ["SIMGPU_NATIVE"] = "0"

import simgpu.fast_bytes as fast_bytes
from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.fast_plan import plan_kernel
from simgpu.replay import ReplayBytes


def main() -> None:
    arch = load_arch(sys.argv[1])
    plans = [plan_kernel(arch, k) for k in schedule(arch, "standard", Problem(1, 16, 16384, 128), {})]
    whole, _ = fast_bytes.replayed_bytes(arch, plans, prefix_tiles=10**9)

    def forced(head: fast_bytes._LongHead) -> object:
        counts = tuple(tuple(len(ts) * part // 8 for ts in head.tiles) for part in (1, 2))
        return fast_bytes._Prefixes(counts, (0.125, 0.25))  # type: ignore[arg-type]

    fast_bytes._head_prefixes = forced  # type: ignore[assignment]
    extrapolated, _ = fast_bytes.replayed_bytes(arch, plans)

    def larger_own(_smaller: ReplayBytes, larger: ReplayBytes, _covered: object) -> object:
        return larger.shares

    setattr(fast_bytes, "extrapolated_shares", larger_own)  # noqa: B010 (replaced for this run)
    own, _ = fast_bytes.replayed_bytes(arch, plans)
    print("kernel tensor: load share, written per byte accessed | whole head | larger prefix's own | extrapolated")
    for k, plan in enumerate(plans):
        for tensor in whole[k]:
            print(
                f"{plan.kernel.name} {tensor}: "
                + " | ".join(f"{s[k][tensor].load:.4f} {s[k][tensor].written:.4f}" for s in (whole, own, extrapolated))
            )


if __name__ == "__main__":
    main()
