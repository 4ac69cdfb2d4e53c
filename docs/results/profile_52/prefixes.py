"""The prefix replays fast mode takes for a head too large to replay whole (`simgpu.fast_bytes._head_prefixes`), for
standard attention's backward at 16k tokens (`benchmarks.simspeed`'s shape) on each arch: per kernel the head's
tiles, the head's share of L2, and the two prefixes' tile counts and shares of the head. Needs the sources
(`SIMGPU_NATIVE=0`: it wraps a compiled function). Run from the repository root:
`SIMGPU_NATIVE=0 python docs/results/profile_52/prefixes.py > docs/results/profile_52/prefixes.txt`."""

from __future__ import annotations

from typing import Any

import simgpu.fast_bytes as fast_bytes
from benchmarks.simspeed import problem_for
from simgpu import fast, load_arch
from simgpu.api import schedule

_original = fast_bytes._head_prefixes


def _reported(head: Any) -> Any:
    prefixes = _original(head)
    tiles = [len(kernel_tiles) for kernel_tiles in head.tiles]
    shares = [round(share, 4) for share in head.head_share]
    print(f"  tiles per head {tiles}, head's L2 share {shares}, heads {head.heads}: {prefixes}")
    return prefixes


def main() -> None:
    fast_bytes._head_prefixes = _reported
    for name in ("a100", "h100", "h200", "b200"):
        arch = load_arch(name)
        print(f"{name}: L2 {arch.l2.capacity_bytes / 2**20:.0f} MiB")
        fast.plan_fast(arch, schedule(arch, "standard", problem_for(16384, "bwd"), {}))


if __name__ == "__main__":
    main()
