"""One exact-mode prediction for an instruction profile of the engine: v1's backward on the A100, 1 x 16 heads,
N = 4096, d = 64 (after a small warm-up).
`valgrind --tool=callgrind --callgrind-out-file=OUT python docs/results/twins_58/exact_v1.py`, then
`callgrind_annotate OUT` (`callgrind_exact_v1.txt`: the functions with the most instructions of their own)."""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate


def main() -> None:
    arch = load_arch("a100")
    simulate(arch, "v1", Problem(1, 1, 256, 64, pass_="bwd"), mode="exact")
    print(simulate(arch, "v1", Problem(1, 16, 4096, 64, pass_="bwd"), mode="exact").cycles)


if __name__ == "__main__":
    main()
