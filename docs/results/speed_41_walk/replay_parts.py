"""Least CPU time of the parts of an all-heads replay (compiled): the head copies and the walk, one process.

`python docs/results/speed_41_walk/replay_parts.py ARCH ALGO PASS SEQLEN REPEATS` (16k tokens, 16 heads, d = 128).
"""

from __future__ import annotations

import gc
import sys
import time

import simgpu.fast_bytes as fast_bytes
from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.fast_plan import plan_kernel


def main(arch_name: str, algo: str, pass_: str, seqlen: int, repeats: int) -> dict[str, float]:
    arch = load_arch(arch_name)
    problem = Problem(max(1, 16384 // seqlen), 16, seqlen, 128, pass_=pass_)
    best: dict[str, float] = {}
    gc.disable()
    for _ in range(repeats):
        plans = tuple(plan_kernel(arch, kernel) for kernel in schedule(arch, algo, problem, {}))
        known = [fast_bytes._replay_folded(plan) for plan in plans]
        heads = fast_bytes._first_heads(arch, plans, known)
        assert heads is not None
        total, concurrent, replayed, tiles = heads
        copied = time.process_time()
        folded = [fast_bytes._head_copies(plan, ts, k) for plan, ts, k in zip(plans, tiles, known, strict=True)]
        walked = time.process_time()
        share = tuple(min(1.0, replayed / each) for each in concurrent)
        replayed_tiles = fast_bytes._Replayed(tiles, folded, share, replayed / total)
        replayed_tiles.replay(arch, replayed_tiles.accesses(arch, plans))
        done = time.process_time()
        for name, seconds in (("head_copies", walked - copied), ("replay", done - walked)):
            best[name] = min(best.get(name, 1e9), seconds)
    return best


if __name__ == "__main__":
    args = sys.argv[1:]
    found = main(args[0], args[1], args[2], int(args[3]), int(args[4]))
    sys.stdout.write(f"{' '.join(args[:4])}: " + ", ".join(f"{k} {v * 1e3:.2f} ms" for k, v in found.items()) + "\n")
