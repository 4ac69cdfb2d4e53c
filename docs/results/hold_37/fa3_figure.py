"""The v3 schedule on the H100 model against FA3's published forward speeds (FA3 paper, arXiv 2407.08608, its
forward-speed figures at head dim 64 and 128, fp16, H100 SXM5; the values as read from transcriptions of the figures
found by the search tool: https://subtext.edge.nugit.net/image/55f47a106c25f22983b2741a7e8bcdbaec8521b6a583d130c6f92b94e0f65924
(d = 64) and .../e27582d2db385c9bac87ebc92343d2452b7c01d5d934e596c90172b346d00d42 (d = 128); whether they are the
figures without the causal mask is not confirmed there). The paper's shapes: 16k tokens (batch = 16384 / N), hidden
2048 (heads = 2048 / d); the schedule's defaults (FA3's tiles), not causal, fast mode, for whichever model variant
the environment selects. `python docs/results/hold_37/fa3_figure.py`
"""

from simgpu import Problem, load_arch, simulate

PUBLISHED = {  # TFLOP/s at N = 512, 1k, 2k, 4k, 8k, 16k
    64: (333, 392, 460, 476, 496, 497),
    128: (467, 565, 625, 638, 646, 648),
}

arch = load_arch("h100")
errors = []
for d, figures in PUBLISHED.items():
    for n, published in zip((512, 1024, 2048, 4096, 8192, 16384), figures, strict=True):
        result = simulate(arch, "v3", Problem(16384 // n, 2048 // d, n, d, dtype="fp16"), mode="fast")
        errors.append(result.tflops / published - 1)
        print(f"d={d:3d} N={n:5d}: model {result.tflops:5.0f}, published {published} TFLOP/s ({errors[-1]:+.1%})")
print(f"mean |error| {sum(abs(e) for e in errors) / len(errors):.1%} over {len(errors)}")
