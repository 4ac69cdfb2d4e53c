"""Least CPU time of REPS predictions per case ARCH:ALGO:PASS:SEQLEN (16k tokens, 16 heads, d=128), with the first
prediction's cycles. Run from a worktree root with its .venv, the worktrees alternated by hand:
`python docs/results/speed_41_sched/cpu_case.py REPS CASE...`"""

import sys
import time

from simgpu import Problem, load_arch, simulate

reps = int(sys.argv[1])
for case in sys.argv[2:]:
    arch_name, algo, pass_, text = case.split(":")
    seqlen = int(text)
    arch = load_arch(arch_name)
    problem = Problem(max(1, 16384 // seqlen), 16, seqlen, 128, pass_=pass_)
    first = simulate(arch, algo, problem)
    best_s = float("inf")
    for _ in range(reps):
        start = time.process_time()
        simulate(arch, algo, problem)
        best_s = min(best_s, time.process_time() - start)
    print(f"{case} {best_s * 1000:.1f} ms cycles={first.cycles}")
