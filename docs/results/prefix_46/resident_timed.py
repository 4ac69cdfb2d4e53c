"""Why the resident prefixes (`simgpu.fast_bytes._resident_prefixes`) also ask the later heads' bytes to push the
replayed head's lines out past the smaller prefix's footprint: v2's forward on a B200 cut to 8 SMs and a 16 MiB L2
(3 heads, N = 8k, d = 128), the head's first 8 and 16 tiles forced as prefixes, against the whole head. The five
replayed byte counts in MB (HBM read, written, timed, L2 read, written) and exact mode's. Runs on the sources
(`SIMGPU_NATIVE=0`).

    python docs/results/prefix_46/resident_timed.py > docs/results/prefix_46/resident_timed.txt
"""

from __future__ import annotations

import os

os.environ["SIMGPU_NATIVE"] = "0"

import simgpu.fast_bytes as fast_bytes
from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.fast_plan import plan_kernel


def main() -> None:
    arch = load_arch("b200", {"sms": 8, "l2.capacity_bytes": 16 << 20})
    problem = Problem(1, 3, 8192, 128)
    plans = [plan_kernel(arch, kernel) for kernel in schedule(arch, "v2", problem, {})]
    _, whole = fast_bytes.replayed_bytes(arch, plans, prefix_tiles=10**9)

    def forced(head: fast_bytes._LongHead) -> object:
        return fast_bytes._Prefixes(((8,), (16,)), (8 / len(head.tiles[0]), 16 / len(head.tiles[0])))

    fast_bytes._head_prefixes = forced  # type: ignore[assignment]
    _, prefix = fast_bytes.replayed_bytes(arch, plans)
    exact = simulate(arch, "v2", problem, mode="exact")
    print("prefixes of 8 and 16 tiles:", " ".join(f"{each / 1e6:.2f}" for each in prefix))
    print("whole head:                ", " ".join(f"{each / 1e6:.2f}" for each in whole))
    print(f"exact mode: read {exact.hbm_read_bytes / 1e6:.2f}, written {exact.hbm_write_bytes / 1e6:.2f}")


if __name__ == "__main__":
    main()
