"""Whether one process's exact predictions slow the later ones: the B200's v2 backward at issue 4's shape, before and
after v1's fwd+bwd and standard attention's. Prints wall seconds and the collector's tracked objects."""

from __future__ import annotations

import gc
import time

from simgpu import Problem, load_arch, simulate


def timed(arch: str, algo: str, pass_: str, reps: int = 2) -> None:
    problem, chip, times = Problem(4, 16, 4096, 64, pass_=pass_), load_arch(arch), []
    for _ in range(reps):
        started = time.perf_counter()
        simulate(chip, algo, problem, mode="exact")
        times.append(time.perf_counter() - started)
    print(arch, algo, pass_, " ".join(f"{t:.2f}" for t in times), "gc objects", len(gc.get_objects()), flush=True)


def main() -> None:
    timed("b200", "v2", "bwd")
    timed("h200", "v1", "fwd_bwd", reps=1)
    timed("b200", "v2", "bwd")
    timed("h100", "standard", "fwd_bwd", reps=1)
    timed("b200", "v2", "bwd")


if __name__ == "__main__":
    main()
