import sys

from simgpu import Problem, load_arch, simulate

over = {"hbm.loaded_latency": None} if sys.argv[1] == "off" else {}
arch = load_arch("h200", over)
p = Problem(16, 16, 1024, 128, causal=True)
f = simulate(arch, "v1", p)
e = simulate(arch, "v1", p, mode="exact")
print(
    sys.argv[1],
    f"fast/exact {f.cycles / e.cycles:.4f} fast {f.cycles:.0f} exact {e.cycles:.0f}",
    f"hbm busy f {f.busy['hbm']:.3f} e {e.busy['hbm']:.3f} l2 f {f.busy['l2']:.3f} e {e.busy['l2']:.3f}",
)
