"""Four small problems of standard attention from fast_random's misses: fast against exact mode, kernel by kernel.

`python four_cases.py` (run with SIMGPU_NATIVE=0 to time a patched source tree).
"""

from simgpu import Problem, load_arch, simulate

CASES = (  # (arch, SMs, batch, heads, seqlen, headdim, pass, options)
    ("h200", 16, 2, 1, 391, 64, "fwd", {}),
    ("h200", 8, 3, 3, 256, 128, "bwd", {}),
    ("h100", 8, 3, 3, 256, 128, "fwd", {"block_n": 128}),
    ("h100", 16, 2, 3, 512, 32, "fwd", {}),
)


def main() -> None:
    for arch_name, sms, batch, heads, seqlen, headdim, pass_, options in CASES:
        arch = load_arch(arch_name, overrides={"sms": sms})
        problem = Problem(batch, heads, seqlen, headdim, pass_=pass_)
        fast = simulate(arch, "standard", problem, options=options, mode="fast")
        exact = simulate(arch, "standard", problem, options=options, mode="exact")
        print(arch_name, sms, batch, heads, seqlen, headdim, pass_, options, f"{fast.cycles / exact.cycles:.4f}")
        print("  fast kernels ", [round(c) for c in fast.kernel_cycles], "CTAs per SM", fast.ctas_per_sm)
        print("  exact kernels", [round(c) for c in exact.kernel_cycles])


if __name__ == "__main__":
    main()
