"""CPU time of one fast-mode prediction of a speed-benchmark case (16k tokens, 16 heads, d = 128), after a warm-up:
the least and the median of REPS (`python cpu_time.py arch:algo:pass:seqlen REPS`, from the checkout to time)."""

from __future__ import annotations

import sys
import time

from simgpu import Problem, load_arch, simulate


def main(case: str, reps: int) -> None:
    arch, algo, pass_, seqlen = case.split(":")
    n = int(seqlen)
    chip, problem = load_arch(arch), Problem(max(1, 16384 // n), 16, n, 128, pass_=pass_)
    simulate(chip, algo, problem, mode="fast")
    times = []
    for _ in range(reps):
        started = time.process_time()
        simulate(chip, algo, problem, mode="fast")
        times.append(time.process_time() - started)
    times.sort()
    print(f"{case} least {times[0] * 1e3:.1f} ms median {times[len(times) // 2] * 1e3:.1f} ms")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
