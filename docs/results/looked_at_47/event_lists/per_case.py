"""Exact mode's CPU seconds on twelve cases (A100 and H100; v1, standard attention and v2; forward and backward;
1 x 16 heads, N = 4096, d = 64), for the event-list A/B of this folder: run from each checkout's folder with its own
compiled modules, `PYTHONPATH=DIR python per_case.py LABEL > per_case_LABEL.txt`."""

from __future__ import annotations

import sys
import time

from simgpu import Problem, load_arch, simulate


def main(label: str) -> None:
    simulate(load_arch("h200"), "v2", Problem(1, 1, 256, 64), mode="exact")  # warm-up
    print(label)
    for arch in ("a100", "h100"):
        for algo in ("v1", "standard", "v2"):
            for pass_ in ("fwd", "bwd"):
                started = time.process_time()
                simulate(load_arch(arch), algo, Problem(1, 16, 4096, 64, pass_=pass_), mode="exact")
                print(f"{arch} {algo} {pass_} {time.process_time() - started:.3f}")


if __name__ == "__main__":
    main(sys.argv[1])
