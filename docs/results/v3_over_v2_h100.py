"""v3 over v2 on the H100 model, forward, FA3's sweep (16k tokens, hidden 2048: d = 64, 128, 256 with 32, 16, 8
heads; seqlen 512..16k; causal and not), fast mode, against FA3's published 1.5-2.0x. Run:
`python docs/results/v3_over_v2_h100.py`."""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate


def main() -> None:
    arch = load_arch("h100")
    print("d causal: seqlen v2/v3 TFLOP/s = v3 over v2")
    for headdim in (64, 128, 256):
        for causal in (False, True):
            cells = []
            for seqlen in (512, 1024, 2048, 4096, 8192, 16384):
                problem = Problem(16384 // seqlen, 2048 // headdim, seqlen, headdim, causal=causal)
                v2, v3 = simulate(arch, "v2", problem), simulate(arch, "v3", problem)
                cells.append(f"{seqlen}: {v2.tflops:.0f}/{v3.tflops:.0f} = {v3.tflops / v2.tflops:.2f}")
            print(f"{headdim} {causal!s:5}: " + "; ".join(cells))


if __name__ == "__main__":
    main()
