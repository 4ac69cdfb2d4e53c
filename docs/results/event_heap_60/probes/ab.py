"""One exact-mode prediction at issue 4's shape (4 x 16 heads, N = 4096, d = 64), three times after a small warm-up:
`python ab.py ARCH ALGO PASS`. Prints the wall seconds of each."""

from __future__ import annotations

import sys
import time

from simgpu import Problem, load_arch, simulate


def main() -> None:
    arch_name, algo, pass_ = sys.argv[1:4]
    arch = load_arch(arch_name)
    simulate(arch, algo, Problem(1, 2, 512, 64), mode="exact")
    times = []
    for _ in range(3):
        started = time.perf_counter()
        simulate(arch, algo, Problem(4, 16, 4096, 64, pass_=pass_), mode="exact")
        times.append(time.perf_counter() - started)
    print(arch_name, algo, pass_, " ".join(f"{t:.3f}" for t in times))


if __name__ == "__main__":
    main()
