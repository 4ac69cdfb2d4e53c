"""The L2 replay of the B200's standard attention forward at 16k tokens (16 heads, d = 128): the records of the
two prefixes it walks (4,096 and 8,192 score tiles, 1,024 and 2,048 softmax rows, 32 and 64 P V tiles; the counts
`_overflow_prefixes` picks there: `python replay_records.py count`), or `replayed_bytes` repeated N times after one
warm-up, for an instruction count under callgrind (`python replay_records.py N`: run with 0 and 1, the difference
is one plan and replay)."""

from __future__ import annotations

import gc
import sys

import simgpu.fast_bytes as fast_bytes
from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.fast_plan import plan_kernel

PREFIXES = ((4096, 1024, 32), (8192, 2048, 64))


def main(what: str) -> None:
    arch = load_arch("b200")
    kernels = schedule(arch, "standard", Problem(1, 16, 16384, 128), {})
    gc.disable()
    plans = [plan_kernel(arch, kernel) for kernel in kernels]
    fast_bytes.replayed_bytes(arch, plans)
    if what == "count":
        for counts in PREFIXES:
            records = [
                sum(len(tile.records) for tile in fast_bytes._head_copies(plan, list(plan.kernel.tiles[:count])))
                for plan, count in zip(plans, counts, strict=True)
            ]
            print(f"prefix {counts}: records per kernel {records}, {sum(records)} in all")
        return
    for _ in range(int(what)):
        plans = [plan_kernel(arch, kernel) for kernel in kernels]
        fast_bytes.replayed_bytes(arch, plans)


if __name__ == "__main__":
    main(sys.argv[1])
