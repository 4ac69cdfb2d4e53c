"""The L2 replay's walks of one fast-mode prediction: per walk, the kernel's number and the accesses walked.
Runs the source modules (`SIMGPU_NATIVE=0`) so that the walk can be watched. `SIMGPU_NATIVE=0 PYTHONPATH=CHECKOUT
python docs/results/alike_heads_61/walks.py arch:algo:pass:seqlen ...` (the speed benchmark's problems)."""

from __future__ import annotations

import sys
from typing import Any

import simgpu.replay as replay
from simgpu import Problem, load_arch, simulate

walked: list[tuple[int, int]] = []
walk = replay._walk


def watched(arch: Any, state: Any, number: int, kernel: Any, *rest: Any) -> None:
    walked.append((number, sum(len(tile) for tile in kernel.accesses)))
    walk(arch, state, number, kernel, *rest)


def main(cases: list[str]) -> None:
    replay._walk = watched
    for case in cases:
        arch, algo, pass_, seqlen = case.split(":")
        n = int(seqlen)
        walked.clear()
        simulate(load_arch(arch), algo, Problem(max(1, 16384 // n), 16, n, 128, pass_=pass_), mode="fast")
        print(case, "walks (kernel, accesses):", walked)


if __name__ == "__main__":
    main(sys.argv[1:])
