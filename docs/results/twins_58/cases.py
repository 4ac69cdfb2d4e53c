"""The A/B grid's cases (`benchmarks.fast_ab --grid ab`'s shapes: every arch x algorithm x pass at 1k and 128k tokens
per sequence, 16k tokens, 16 heads, d = 128), each predicted twice in one process (a warm-up, then the prediction),
for an instruction count under callgrind, which the VM's timing noise (0.7-1.4x between runs of the same code) does
not move:
`valgrind --tool=callgrind --callgrind-out-file=OUT python docs/results/twins_58/cases.py`, once per checkout
(PYTHONPATH), then `callgrind_annotate --inclusive=yes OUT` (`callgrind.txt`)."""

from __future__ import annotations

import sys
import time

from simgpu import Problem, load_arch, simulate
from simgpu.errors import SimgpuError


def main() -> None:
    cases = []
    for arch_name in ("a100", "h100", "h200", "b200"):
        arch = load_arch(arch_name)
        for algo in ("standard", "v1", "v2", "v3", "v4"):
            for pass_ in ("fwd", "bwd"):
                for seqlen in (1024, 131072):
                    problem = Problem(max(1, 16384 // seqlen), 16, seqlen, 128, pass_=pass_)
                    try:
                        simulate(arch, algo, problem)
                    except SimgpuError:
                        continue
                    cases.append((arch, algo, problem))
    started = time.process_time()
    for arch, algo, problem in cases:
        simulate(arch, algo, problem)
    print(len(cases), "cases", time.process_time() - started, "CPU s", file=sys.stderr)


if __name__ == "__main__":
    main()
