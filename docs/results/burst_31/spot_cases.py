"""Fast against exact mode on the cases the tests name (`tests/core/test_fast.py`, `test_properties.py`): run from a
checkout's root to time that checkout (`cd CHECKOUT && PYTHONPATH=. python .../spot_cases.py`)."""

from simgpu import Problem, load_arch, simulate
from simgpu.problem import GemmProblem

CASES = (
    ("h100 gemm 4096^3 bf16", "h100", {}, "gemm", GemmProblem(4096, 4096, 4096, "bf16"), {}),
    ("h100 v3 fwd 1 x 8 x 2048, d 128", "h100", {}, "v3", Problem(1, 8, 2048, 128), {}),
    ("h100 standard fwd 1 x 16 x 1024, d 64", "h100", {}, "standard", Problem(1, 16, 1024, 64), {}),
    ("a100 v1 fwd 2 x 2, 1 query x 385 keys, d 128", "a100", {}, "v1", Problem(2, 2, 1, 128, seqlen_k=385), {}),
    (
        "h100/8 SMs standard pytorch causal fp16 1 x 16 x 512, d 64",
        "h100",
        {"sms": 8},
        "standard",
        Problem(1, 16, 512, 64, causal=True, dtype="fp16"),
        {"framework": "pytorch"},
    ),
)


def main() -> None:
    for label, arch_name, overrides, algo, problem, options in CASES:
        arch = load_arch(arch_name, overrides)
        fast = simulate(arch, algo, problem, options, mode="fast")
        exact = simulate(arch, algo, problem, options, mode="exact")
        ratio = fast.cycles / exact.cycles
        print(f"{label}: fast {fast.cycles:,.0f} exact {exact.cycles:,.0f} cycles, fast / exact {ratio:.4f}")


if __name__ == "__main__":
    main()
