"""FA3's own d = 64 configuration on the H100 model (fp16, fast mode): the v3 schedule's defaults (block_m 192, three
consumer warpgroups) at N = 4k and 16k, and block_m 128 against 192 at 16k (FA3 chose 192), for
whichever model variant the environment selects (the switches of README.txt, SIMGPU_NATIVE=0 with the patch).
`python docs/results/hold_37/fa3_d64.py`
"""

from simgpu import Problem, load_arch, simulate

arch = load_arch("h100")
for n in (4096, 16384):
    result = simulate(arch, "v3", Problem(16384 // n, 16, n, 64, dtype="fp16"), mode="fast")
    print(f"defaults, N={n}: {result.tflops:5.0f} TFLOP/s ({result.bottleneck})")
for block_m in (128, 192):
    result = simulate(arch, "v3", Problem(1, 16, 16384, 64, dtype="fp16"), {"block_m": block_m}, mode="fast")
    print(f"block_m={block_m}, N=16384: {result.tflops:5.0f} TFLOP/s ({result.bottleneck})")
