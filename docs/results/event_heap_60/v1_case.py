"""One exact-mode prediction of v1 on the H100 (2 x 16 heads, N = 4096, d = 64), forward or backward, for an
instruction count of the engine under callgrind: `valgrind --tool=callgrind --callgrind-out-file=OUT python
docs/results/event_heap_60/v1_case.py fwd|bwd`, once per checkout (PYTHONPATH), then `callgrind_annotate
--inclusive=yes OUT` (`callgrind.txt`). Prints the wall seconds and the cycles."""

from __future__ import annotations

import sys
import time

from simgpu import Problem, load_arch, simulate


def main() -> None:
    problem = Problem(2, 16, 4096, 64, pass_=sys.argv[1] if len(sys.argv) > 1 else "fwd")
    started = time.perf_counter()
    result = simulate(load_arch("h100"), "v1", problem, mode="exact")
    print(time.perf_counter() - started, result.cycles)


if __name__ == "__main__":
    main()
