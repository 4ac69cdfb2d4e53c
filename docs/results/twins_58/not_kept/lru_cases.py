"""Five replay-heavy benchmark cases (16k tokens, 16 heads, d = 128), one prediction each, for an instruction count
of the replay's L2 state as `OrderedDict`s against native linked nodes (`lru_order.diff`):
`valgrind --tool=callgrind --callgrind-out-file=OUT python docs/results/twins_58/not_kept/lru_cases.py`, once per
checkout (`lru_order.txt`)."""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate

CASES = (
    ("b200", "v2", "bwd", 131072),
    ("h100", "v1", "bwd", 131072),
    ("b200", "standard", "bwd", 16384),
    ("h200", "v3", "bwd", 131072),
    ("a100", "v1", "fwd", 16384),
)


def main() -> None:
    for arch_name, algo, pass_, seqlen in CASES:
        simulate(load_arch(arch_name), algo, Problem(max(1, 16384 // seqlen), 16, seqlen, 128, pass_=pass_))


if __name__ == "__main__":
    main()
