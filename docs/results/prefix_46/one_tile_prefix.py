"""Why `simgpu.fast_bytes._turns_over` tells whether a kernel's tiles share keys on at least the head's first
`COMMON_SAMPLE_TILES` tiles: standard attention's backward on an A100 cut to 10 SMs and a 1 MiB L2 (3 heads,
N = 8k, d = 64). Told on the smaller prefix's own tiles (`COMMON_SAMPLE_TILES` = 1: one tile of each product
kernel, which shares nothing with itself), the overflow prefixes took one and two of the products' 64 tiles a head,
whose 6.4 waves read dO, K and Q again; told on 8, the head replays whole. The prefixes taken and the five replayed
byte counts in MB (HBM read, written, timed, L2 read, written) against the whole head. Runs on the sources
(`SIMGPU_NATIVE=0`).

    python docs/results/prefix_46/one_tile_prefix.py > docs/results/prefix_46/one_tile_prefix.txt
"""

from __future__ import annotations

import os

os.environ["SIMGPU_NATIVE"] = "0"

import simgpu.fast_bytes as fast_bytes
from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.fast_plan import plan_kernel


def main() -> None:
    arch = load_arch("a100", {"sms": 10, "l2.capacity_bytes": 1 << 20})
    plans = [
        plan_kernel(arch, kernel) for kernel in schedule(arch, "standard", Problem(1, 3, 8192, 64, pass_="bwd"), {})
    ]
    _, whole = fast_bytes.replayed_bytes(arch, plans, prefix_tiles=10**9)
    print("whole head:", " ".join(f"{each / 1e6:.2f}" for each in whole))
    rule = fast_bytes._head_prefixes
    taken: list[object] = []

    def told(head: fast_bytes._LongHead) -> object:
        found = rule(head)
        taken.append(None if found is None else found.counts)
        return found

    fast_bytes._head_prefixes = told  # type: ignore[assignment]
    for sample in (1, fast_bytes.COMMON_SAMPLE_TILES):
        fast_bytes.COMMON_SAMPLE_TILES = sample
        taken.clear()
        _, prefix = fast_bytes.replayed_bytes(arch, plans, prefix_tiles=8)
        print(f"sample {sample}: prefixes {taken[0]}:", " ".join(f"{each / 1e6:.2f}" for each in prefix))


if __name__ == "__main__":
    main()
