"""Exact mode's CPU time for the slowest case of issue 4's CLI matrix (the H200's v1 fwd+bwd, 4 x 16 heads, N = 4096,
d = 64), one run per process, after a small warm-up: what the fifty-second session's barriers cost (a `Delay` per
`__syncthreads`, three per query step over a forward and a backward step). Run from a checkout's root with that
checkout first on the path, alternating the base (a `git worktree` at 4ac4cbf) and this commit:
`PYTHONPATH=DIR python docs/results/cta_sync_52/exact_ab.py` (output in `exact_ab.txt`)."""

from __future__ import annotations

import time

import simgpu
from simgpu import Problem, load_arch, simulate


def main() -> None:
    arch = load_arch("h200")
    simulate("h100", "v2", Problem(1, 1, 256, 64), mode="exact")
    started = time.process_time()
    result = simulate(arch, "v1", Problem(4, 16, 4096, 64, pass_="fwd_bwd"), mode="exact")
    print(f"{simgpu.__file__}: CPU {time.process_time() - started:.2f} s, {result.cycles:,.0f} cycles")


if __name__ == "__main__":
    main()
