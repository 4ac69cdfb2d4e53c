"""Back-to-back fast-mode predictions of one speed-benchmark case for a sampling profiler (after a warm-up one):
`py-spy record -r 200 -f raw -o OUT -- python docs/results/lines_62/pyspy_loop.py arch:algo:pass:seqlen SECONDS`
(py-spy installed apart, not a dependency), then `python docs/results/lines_62/pyspy_summary.py OUT`."""

from __future__ import annotations

import sys
import time

from simgpu import Problem, load_arch, simulate


def main(case: str, seconds: float) -> None:
    arch, algo, pass_, seqlen = case.split(":")
    n = int(seqlen)
    chip, problem = load_arch(arch), Problem(max(1, 16384 // n), 16, n, 128, pass_=pass_)
    simulate(chip, algo, problem)
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        simulate(chip, algo, problem)


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]))
