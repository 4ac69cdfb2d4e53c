"""Fast-mode predictions of one speed-benchmark case for an instruction count under callgrind: one warm-up, then
`REPEATS` more (`python callgrind_case.py arch:algo:pass:seqlen REPEATS`). Run with 0 and 2 and take half the
difference of the two totals: one prediction's instructions, without the imports and the warm-up.
`valgrind --tool=callgrind --callgrind-out-file=OUT python docs/results/alike_heads_61/callgrind_case.py CASE N`."""

from __future__ import annotations

import sys

from simgpu import Problem, load_arch, simulate


def main(case: str, repeats: int) -> None:
    arch, algo, pass_, seqlen = case.split(":")
    n = int(seqlen)
    chip, problem = load_arch(arch), Problem(max(1, 16384 // n), 16, n, 128, pass_=pass_)
    for _ in range(1 + repeats):
        simulate(chip, algo, problem, mode="fast")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
