"""Four exact-mode predictions for an instruction count of the engine under callgrind (v1, standard attention and v2
on the H200, v1 on the A100; d = 64): `valgrind --tool=callgrind --callgrind-out-file=OUT python
docs/results/queue_59/exact_cases.py`, once per checkout (PYTHONPATH), then `callgrind_annotate --inclusive=yes OUT`
(`callgrind.txt`)."""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate

CASES = (
    ("h200", "v1", Problem(1, 16, 2048, 64, pass_="bwd")),
    ("h200", "standard", Problem(1, 16, 2048, 64, pass_="fwd_bwd")),
    ("h200", "v2", Problem(4, 16, 2048, 64, pass_="fwd_bwd")),
    ("a100", "v1", Problem(2, 16, 1024, 64, pass_="fwd_bwd")),
)


def main() -> None:
    for arch, algo, problem in CASES:
        simulate(load_arch(arch), algo, problem, mode="exact")


if __name__ == "__main__":
    main()
