"""Fast mode against exact mode on PyTorch's causal forward (`framework="pytorch"`, no dropout) at a full H200, 8 x 16
heads of N = 1024, d = 64, fp16: each kernel's cycles, with the HBM's loaded latency as the arch file has it and
without it. masked_fill, which loads in 32 dependent rounds a CTA (`Load.rounds`), waits the loaded latency 32 times;
the latency's extra follows the HBM's recent bookings, which a CTA makes at once for all its rounds, and fast mode's
representative SMs see another mix of those bursts than the whole chip does. Run from the repository root:
`python docs/results/elementwise_rounds/fast_vs_exact.py > docs/results/elementwise_rounds/fast_vs_exact.txt`.
"""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule


def main() -> None:
    problem = Problem(8, 16, 1024, 64, causal=True, dtype="fp16", pass_="fwd")
    options = {"framework": "pytorch"}
    base = load_arch("h200")
    names = [kernel.name for kernel in schedule(base, "standard", problem, options)]
    for label, arch in (("loaded latency on", base), ("off", base.with_overrides({"hbm.loaded_latency": None}))):
        fast, exact = (simulate(arch, "standard", problem, options, mode=mode) for mode in ("fast", "exact"))
        print(f"{label}: HBM reads fast / exact {fast.hbm_read_bytes / exact.hbm_read_bytes:.4f}")
        for name, f, e in zip(names, fast.kernel_cycles, exact.kernel_cycles, strict=True):
            print(f"  {name:14} fast {f:10.0f} exact {e:10.0f} cycles  fast / exact {f / e:.4f}")


if __name__ == "__main__":
    main()
