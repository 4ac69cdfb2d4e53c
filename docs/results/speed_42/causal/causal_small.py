import sys
import time

from simgpu import Problem, load_arch, simulate

base = load_arch("h200")
sms = int(sys.argv[1])
frac = sms / base.sms
over = {
    "sms": sms,
    "hbm.bandwidth_bytes_per_s": base.hbm.bandwidth_bytes_per_s * frac,
    "l2.bandwidth_bytes_per_s": base.l2.bandwidth_bytes_per_s * frac,
    "l2.capacity_bytes": int(base.l2.capacity_bytes * frac),
}
if len(sys.argv) > 3 and sys.argv[3] == "noll":
    over["hbm.loaded_latency"] = None
arch = load_arch("h200", over)
p = Problem(1, int(sys.argv[2]), 1024, 128, causal=True)
t = time.time()
f = simulate(arch, "v1", p)
e = simulate(arch, "v1", p, mode="exact")
print(
    sys.argv[1:],
    f"fast/exact {f.cycles / e.cycles:.4f} fast {f.cycles:.0f} exact {e.cycles:.0f}",
    f"hbm f {f.busy['hbm']:.3f} e {e.busy['hbm']:.3f} {time.time() - t:.1f}s",
)
