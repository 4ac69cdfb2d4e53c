"""v2's forward with our CUDA kernel's K/V ring (`kv_layout="ring"`, the default) against FA2's own one K and one V
buffer (`kv_layout="split"`), fast mode, FA2's sweep shapes (16k tokens, hidden 2048) at 1k and 8k: TFLOP/s, CTAs
per SM, and on the A100 the share of its 312 TFLOP/s (dense bf16, datasheet). Then a what-if: the A100 without
tensor-core / lane-pipe contention (`contention: null`, as its file stood until the twentieth session, which took the
H200's measured mma.sync rates for it, not measured on an A100). Run: `python docs/results/v2_kv_layout.py`.
"""

from __future__ import annotations

from simgpu import Problem, SimgpuError, load_arch, simulate
from simgpu.arch import Arch

A100_PEAK_TFLOPS = 312.0


def cell(arch: str | Arch, problem: Problem, layout: str) -> str:
    try:
        result = simulate(arch, "v2", problem, {"kv_layout": layout})
    except SimgpuError as err:
        return f"{layout}: {type(err).__name__}"
    a100 = arch == "a100" or (isinstance(arch, Arch) and arch.name.startswith("NVIDIA A100"))
    share = f" ({100 * result.tflops / A100_PEAK_TFLOPS:.0f}% of peak)" if a100 else ""
    return f"{layout}: {result.tflops:.0f} TFLOP/s{share}, {result.ctas_per_sm[0]} CTA/SM"


def main() -> None:
    for arch in ("a100", "h100", "h200", "b200"):
        for headdim in (64, 128, 256):
            for seqlen in (1024, 8192):
                problem = Problem(16384 // seqlen, 2048 // headdim, seqlen, headdim)
                print(f"{arch} d={headdim} N={seqlen}: {cell(arch, problem, 'ring')} | {cell(arch, problem, 'split')}")
    what_if = load_arch("a100", {"contention": None})
    print("## what-if: the A100 without contention (its file before the twentieth session)")
    for headdim in (64, 128):
        for seqlen in (1024, 8192):
            problem = Problem(16384 // seqlen, 2048 // headdim, seqlen, headdim)
            cells = f"{cell(what_if, problem, 'ring')} | {cell(what_if, problem, 'split')}"
            print(f"a100-contention d={headdim} N={seqlen}: {cells}")


if __name__ == "__main__":
    main()
