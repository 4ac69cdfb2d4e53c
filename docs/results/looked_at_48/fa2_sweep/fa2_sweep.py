"""Fast mode against exact mode on FA2's benchmark shapes (16k tokens, hidden 2048: d = 64 with 32 heads, d = 128 with
16, not causal), each algorithm with its default options: cycles and HBM bytes, fast over exact.
`python docs/results/looked_at_48/fa2_sweep/fa2_sweep.py ARCHS ALGOS PASSES [N,N,...] > FILE` (comma-separated lists;
N 512-16k by default; exact mode's event budget raised for the long runs)."""

from __future__ import annotations

import sys
from concurrent.futures import ProcessPoolExecutor

from simgpu import Problem, load_arch, simulate

EXACT_BUDGET = 10**9


def one(case: tuple[str, str, str, int, int]) -> str:
    arch_name, algo, pass_, seqlen, headdim = case
    arch = load_arch(arch_name)
    problem = Problem(16384 // seqlen, 2048 // headdim, seqlen, headdim, pass_=pass_)
    fast = simulate(arch, algo, problem)
    exact = simulate(arch, algo, problem, mode="exact", event_budget=EXACT_BUDGET)
    return (
        f"{arch_name} {algo} {pass_} N={seqlen} d={headdim}: cycles {fast.cycles / exact.cycles:.4f}, HBM reads"
        f" {fast.hbm_read_bytes / exact.hbm_read_bytes:.3f}, writes {fast.hbm_write_bytes / exact.hbm_write_bytes:.3f}"
    )


def main() -> None:
    archs, algos, passes = (argument.split(",") for argument in sys.argv[1:4])
    seqlens = [int(n) for n in sys.argv[4].split(",")] if len(sys.argv) > 4 else [512, 1024, 2048, 4096, 8192, 16384]
    cases = [(a, al, p, n, d) for a in archs for al in algos for p in passes for d in (64, 128) for n in seqlens]
    with ProcessPoolExecutor(2) as pool:
        for line in pool.map(one, cases):
            print(line, flush=True)


if __name__ == "__main__":
    main()
