"""v3 over v2 on the H100 model, FA3's sweep (16k tokens, hidden 2048: d = 64, 128, 256 with 32, 16, 8 heads; seqlen
512..16k; causal and not), fast mode, forward against FA3's published 1.5-2.0x and backward against its 1.5-1.75x
(the backward since the nineteenth session, v2's being FA2's own kernel then; at d = 64 and 128: the v3 backward's
default tile at d = 256 needs 265 KiB of smem, more than a CTA may take). Run:
`python docs/results/v3_over_v2_h100.py`."""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate


def main() -> None:
    arch = load_arch("h100")
    for pass_ in ("fwd", "bwd"):
        print(f"{pass_}: d causal: seqlen v2/v3 TFLOP/s = v3 over v2")
        for headdim in (64, 128, 256) if pass_ == "fwd" else (64, 128):
            for causal in (False, True):
                cells = []
                for seqlen in (512, 1024, 2048, 4096, 8192, 16384):
                    problem = Problem(16384 // seqlen, 2048 // headdim, seqlen, headdim, causal=causal, pass_=pass_)
                    v2, v3 = simulate(arch, "v2", problem), simulate(arch, "v3", problem)
                    cells.append(f"{seqlen}: {v2.tflops:.0f}/{v3.tflops:.0f} = {v3.tflops / v2.tflops:.2f}")
                print(f"{headdim} {causal!s:5}: " + "; ".join(cells))


if __name__ == "__main__":
    main()
