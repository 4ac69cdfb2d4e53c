"""The removed iterations' costs (cycles each) of v1 as our kernel loops on the whole H100 at 8 x 16 x N, d = 128
(N = 1024 and 2048), where the chip is saturated: per row of the fit (the loops of the folded tile), the busy fit's,
the target's it is lowered towards (the SM alone, or with the trial `../loaded_alone.patch` applied, alone at the
loaded HBM latency), the price taken, and the HBM and L2 service of the row's bytes busy and alone. Python modules
(the function that lowers them is watched). `python docs/results/slot_misses_54/not_kept/loaded_alone/slopes.py`"""

from __future__ import annotations

import os

os.environ["SIMGPU_NATIVE"] = "0"

from collections.abc import Sequence
from typing import Any

import numpy as np

import simgpu.fast_costs as fast_costs
from simgpu import Problem, load_arch, simulate

OPTIONS = {"block_m": 64, "block_n": 64, "warps": 4, "variant": "algorithm1"}


def main() -> None:
    names = fast_costs.metric_names(load_arch("h100"))
    where = {name: fast_costs.TIMES + n for n, name in enumerate(names)}
    lower = fast_costs._shared_slopes

    def watched(busy: np.ndarray, target: np.ndarray, served: Sequence[int], ctas: int) -> Any:
        priced = lower(busy, target, served, ctas)
        for row in range(len(busy)):
            hbm, l2 = where["served:hbm"], where["served:l2"]
            print(
                f"  row {row}: busy {busy[row][1]:,.0f}, target {target[row][1]:,.0f}, priced {priced[row][1]:,.0f};"
                f" HBM service busy {busy[row][hbm]:,.0f}, alone {target[row][hbm]:,.0f}"
                f"; L2 busy {busy[row][l2]:,.0f}, alone {target[row][l2]:,.0f}"
            )
        return priced

    fast_costs.__dict__["_shared_slopes"] = watched
    for seqlen in (1024, 2048):
        print(f"8 x 16 x {seqlen}:")
        result = simulate("h100", "v1", Problem(8, 16, seqlen, 128), OPTIONS)
        print(f"  fast mode {result.cycles:,.0f} cycles")


if __name__ == "__main__":
    main()
