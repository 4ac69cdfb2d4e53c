"""v2's and v3's forwards on an H100 cut to 8 SMs (N = 16k, 3 heads, d = 128; a head's K and V are 8 MiB) with an
L2 of 32, 12, 9 and 4 MB: fast mode's HBM bytes with the prefix replays applying from 8 tiles (which rule took them,
`simgpu.fast_bytes._head_prefixes`), with the head replayed whole, and exact mode's. Runs on the sources
(`SIMGPU_NATIVE=0`: the rules are wrapped to tell which one applied).

    python docs/results/prefix_46/cut_chip_forwards.py > docs/results/prefix_46/cut_chip_forwards.txt
"""

from __future__ import annotations

import os

os.environ["SIMGPU_NATIVE"] = "0"

import simgpu.fast_bytes as fast_bytes
from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.fast_plan import plan_kernel

RULES = ("_wave_prefixes", "_resident_prefixes", "_overflow_prefixes")


def main() -> None:
    taken: list[str] = []
    for name in RULES:
        rule = getattr(fast_bytes, name)

        def wrapped(*args: object, _rule: object = rule, _name: str = name) -> object:
            found = _rule(*args)  # type: ignore[operator]
            if found is not None:
                taken.append(f"{_name[1:]} {found.counts}")
            return found

        setattr(fast_bytes, name, wrapped)
    print("L2 MB, algo: prefixes taken | HBM MB read, written: prefixes | whole head | exact mode")
    for l2_bytes in (32_000_000, 12_000_000, 9_000_000, 4_000_000):
        arch = load_arch("h100", {"sms": 8, "l2.capacity_bytes": l2_bytes})
        for algo in ("v2", "v3"):
            problem = Problem(1, 3, 16384, 128, pass_="fwd")
            plans = [plan_kernel(arch, kernel) for kernel in schedule(arch, algo, problem, {})]
            taken.clear()
            _, prefix = fast_bytes.replayed_bytes(arch, plans, prefix_tiles=8)
            rule = taken[0] if taken else "none"
            _, whole = fast_bytes.replayed_bytes(arch, plans, prefix_tiles=10**9)
            exact = simulate(arch, algo, problem, mode="exact")
            print(
                f"{l2_bytes / 1e6:.0f} {algo}: {rule} | {prefix[0] / 1e6:.2f} {prefix[1] / 1e6:.2f} | "
                f"{whole[0] / 1e6:.2f} {whole[1] / 1e6:.2f} | {exact.hbm_read_bytes / 1e6:.2f} "
                f"{exact.hbm_write_bytes / 1e6:.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
