"""Exact-mode predictions of one problem for an instruction count under callgrind: one warm-up, then `REPEATS` more
(`python exact_case.py arch:algo:pass:batch:heads:seqlen:headdim REPEATS`; half the difference of 2 and 0)."""

from __future__ import annotations

import sys

from simgpu import Problem, load_arch, simulate


def main(case: str, repeats: int) -> None:
    arch, algo, pass_, batch, heads, seqlen, headdim = case.split(":")
    chip, problem = load_arch(arch), Problem(int(batch), int(heads), int(seqlen), int(headdim), pass_=pass_)
    for _ in range(1 + repeats):
        simulate(chip, algo, problem, mode="exact")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
