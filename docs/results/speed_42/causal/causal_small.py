import sys
import time

from scaled import scaled_h200

from simgpu import Problem, simulate

overrides = {"hbm.loaded_latency": None} if len(sys.argv) > 3 and sys.argv[3] == "noll" else {}
arch = scaled_h200(int(sys.argv[1]), **overrides)
p = Problem(1, int(sys.argv[2]), 1024, 128, causal=True)
t = time.time()
f = simulate(arch, "v1", p)
e = simulate(arch, "v1", p, mode="exact")
print(
    sys.argv[1:],
    f"fast/exact {f.cycles / e.cycles:.4f} fast {f.cycles:.0f} exact {e.cycles:.0f}",
    f"hbm f {f.busy['hbm']:.3f} e {e.busy['hbm']:.3f} {time.time() - t:.1f}s",
)
