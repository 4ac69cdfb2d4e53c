"""v2's forward on an H100 cut to 8 SMs and a 4 MB L2 (N = 16k, 2 heads, d = 128): a head's K and V (8 MiB)
overflow L2, so each of its 8 waves of query blocks reads them again. Fast mode's bytes with the prefix replays
applying from 8 tiles, and with the head replayed whole, against exact mode's.

    python docs/results/prefix_46/small_l2_forward.py > docs/results/prefix_46/small_l2_forward_after.txt
"""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.fast_bytes import replayed_bytes
from simgpu.fast_plan import plan_kernel


def main() -> None:
    arch = load_arch("h100", {"sms": 8, "l2.capacity_bytes": 4_000_000})
    problem = Problem(1, 2, 16384, 128, pass_="fwd")
    plans = [plan_kernel(arch, kernel) for kernel in schedule(arch, "v2", problem, {})]
    exact = simulate(arch, "v2", problem, mode="exact")
    print("HBM MB read, written")
    for name, least in (("prefixes from 8 tiles", 8), ("whole head", 10**9)):
        _, vector = replayed_bytes(arch, plans, prefix_tiles=least)
        print(f"{name}: {vector[0] / 1e6:.2f} {vector[1] / 1e6:.2f}")
    print(f"exact mode: {exact.hbm_read_bytes / 1e6:.2f} {exact.hbm_write_bytes / 1e6:.2f}")


if __name__ == "__main__":
    main()
