"""v2's forward with our CUDA kernel's K/V ring (`kv_layout="ring"`, the default) against FA2's own one K and one V
buffer (`kv_layout="split"`), fast mode, FA2's sweep shapes (16k tokens, hidden 2048) at 1k and 8k: TFLOP/s, CTAs per
SM, and on the A100 the share of its 312 TFLOP/s (dense bf16, datasheet). Run: `python docs/results/v2_kv_layout.py`.
"""

from __future__ import annotations

from simgpu import Problem, SimgpuError, simulate

A100_PEAK_TFLOPS = 312.0


def cell(arch: str, problem: Problem, layout: str) -> str:
    try:
        result = simulate(arch, "v2", problem, {"kv_layout": layout})
    except SimgpuError as err:
        return f"{layout}: {type(err).__name__}"
    share = f" ({100 * result.tflops / A100_PEAK_TFLOPS:.0f}% of peak)" if arch == "a100" else ""
    return f"{layout}: {result.tflops:.0f} TFLOP/s{share}, {result.ctas_per_sm[0]} CTA/SM"


def main() -> None:
    for arch in ("a100", "h100", "h200", "b200"):
        for headdim in (64, 128, 256):
            for seqlen in (1024, 8192):
                problem = Problem(16384 // seqlen, 2048 // headdim, seqlen, headdim)
                print(f"{arch} d={headdim} N={seqlen}: {cell(arch, problem, 'ring')} | {cell(arch, problem, 'split')}")


if __name__ == "__main__":
    main()
