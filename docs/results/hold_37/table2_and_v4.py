"""FA3's Table 2 shape on the H100 model (B = 4, 16 heads, N = 8448, d = 128; published 661, 582, 570 TFLOP/s) and
FA4's forward and backward on the B200 model, fast mode, for whichever model variant the environment selects
(`python docs/results/hold_37/table2_and_v4.py`; the candidate: the patch applied, SIMGPU_NATIVE=0 and the switches
of README.txt).
"""

from simgpu import Problem, load_arch, simulate

arch = load_arch("h100")
p = Problem(4, 16, 8448, 128)
for name, opts, pub in (
    ("FA3", {}, 661.0),
    ("no overlap", {"intra_wg_overlap": False}, 582.0),
    ("no WS", {"warp_specialization": False}, 570.0),
    ("no pingpong", {"pingpong": False}, None),
):
    r = simulate(arch, "v3", p, opts, mode="fast")
    print(f"{name:12} {r.tflops:6.0f} TFLOP/s (published {pub}) bottleneck {r.bottleneck}")

b200 = load_arch("b200")
for n in (1024, 8192):
    for pass_ in ("fwd", "bwd"):
        r = simulate(b200, "v4", Problem(16384 // n, 16, n, 128, pass_=pass_), mode="fast")
        print(f"v4 b200 {pass_} N={n} d=128: {r.tflops:6.0f} TFLOP/s bottleneck {r.bottleneck}")
