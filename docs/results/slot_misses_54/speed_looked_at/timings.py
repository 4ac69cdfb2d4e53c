"""This session's VM period, timed: exact mode at issue 4's CLI shape for the H200's v1 (4 x 16 heads, N = 4096,
d = 64; forward, backward and both, through `simulate`, after a small warm-up), and fast mode's CPU seconds per
prediction (mean of three after a warm-up) at the simspeed cases that were over 50 ms in the fifty-first session's run.
`python docs/results/slot_misses_54/speed_looked_at/timings.py > timings.txt`"""

from __future__ import annotations

import time

from benchmarks.simspeed import problem_for
from simgpu import Problem, load_arch, simulate

SLOW = (
    ("h200", "v3", "bwd", 131072),
    ("h100", "v3", "bwd", 131072),
    ("b200", "standard", "bwd", 16384),
    ("a100", "standard", "bwd", 16384),
    ("b200", "v1", "bwd", 131072),
    ("h200", "v1", "bwd", 131072),
    ("b200", "standard", "fwd", 16384),
)
REPEATS = 3


def main() -> None:
    simulate("h100", "v2", Problem(1, 1, 256, 64), mode="exact")
    arch = load_arch("h200")
    for pass_ in ("fwd", "bwd", "fwd_bwd"):
        started, cpu = time.perf_counter(), time.process_time()
        simulate(arch, "v1", Problem(4, 16, 4096, 64, pass_=pass_), mode="exact")
        print(
            f"exact mode, h200 v1 {pass_} at 4 x 16 x 4096, d = 64: {time.perf_counter() - started:.2f} s wall, "
            f"{time.process_time() - cpu:.2f} s CPU"
        )
    for arch_name, algo, pass_, seqlen in SLOW:
        chip, problem = load_arch(arch_name), problem_for(seqlen, pass_)
        simulate(chip, algo, problem)
        cpu = time.process_time()
        for _ in range(REPEATS):
            simulate(chip, algo, problem)
        seconds = (time.process_time() - cpu) / REPEATS
        print(f"fast mode, {arch_name} {algo} {pass_} {seqlen}: {1000 * seconds:.0f} ms CPU a prediction")


if __name__ == "__main__":
    main()
