"""Standard attention's 16 benchmark cases at 4k and 16k tokens per sequence (every arch, forward and backward; 16k
tokens, 16 heads, d = 128), fast mode, for an instruction count of the L2 replay's tile copies under callgrind:
`valgrind --tool=callgrind --callgrind-out-file=OUT python docs/results/queue_59/std_cases.py`, once per checkout
(PYTHONPATH), then `callgrind_annotate --inclusive=yes OUT` (`tile_copies_callgrind.txt`)."""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate


def main() -> None:
    for arch in ("a100", "h100", "h200", "b200"):
        for pass_ in ("fwd", "bwd"):
            for seqlen in (4096, 16384):
                simulate(load_arch(arch), "standard", Problem(16384 // seqlen, 16, seqlen, 128, pass_=pass_))


if __name__ == "__main__":
    main()
