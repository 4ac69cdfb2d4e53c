"""The checks behind `round_trips_not_kept.patch`, for a checkout with the patch applied (whole, or without its
`simgpu/fast_costs.py` part) or without it: on the H200 cut to 16 SMs (L2 and bandwidths scaled, as `bench.py`) the
two-pass softmax alone at N = 1k with 16 and 4 CTAs per SM, exact and fast cycles; and standard attention's backward
on an H100 cut to 10 SMs (N = 1536, d = 128, 3 heads; the fast-vs-exact grid's case), each kernel's cycles in both
modes. Run from the repository root of that checkout:
`python /path/to/docs/results/softmax_cliff_small_chip/round_trips_checks.py`."""

from __future__ import annotations

from dataclasses import replace

import simgpu
from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.engine import DEFAULT_EVENT_BUDGET, Engine
from simgpu.fast import run_fast

SMS = 16
PADS = {16: 0, 4: 53 * 1024}  # CTAs per SM: unused shared memory that limits them so

if __name__ == "__main__":
    print("#", simgpu.__file__)
    scale = SMS / 132
    arch = load_arch("h200", {"sms": SMS, "l2.capacity_bytes": int(62_914_560 * scale),
                              "hbm.bandwidth_bytes_per_s": 4.8e12 * scale,
                              "l2.bandwidth_bytes_per_s": 9.16e12 * scale})  # fmt: skip
    softmax = schedule(arch, "standard", Problem(2, 8, 1024, 64), {"softmax_passes": 2})[1]
    for ctas, pad in PADS.items():
        kernel = replace(softmax, cta=replace(softmax.cta, smem_bytes=softmax.cta.smem_bytes + pad))
        exact = Engine(arch).run([kernel]).cycles
        fast = run_fast(arch, [kernel], arch.clock_hz, DEFAULT_EVENT_BUDGET).cycles
        print(f"small chip, softmax N=1024, {ctas} CTAs per SM: exact {exact:.0f}, fast {fast:.0f} cycles")
    h100 = load_arch("h100", {"sms": 10})
    problem = Problem(1, 3, 1536, 128, pass_="bwd")
    exact_kernels = simulate(h100, "standard", problem, mode="exact").kernel_cycles
    fast_kernels = simulate(h100, "standard", problem, mode="fast").kernel_cycles
    names = [kernel.name for kernel in schedule(h100, "standard", problem, {})]
    for name, e, f in zip(names, exact_kernels, fast_kernels, strict=True):
        print(f"H100 on 10 SMs, standard bwd N=1536 d=128, {name}: exact {e:.0f}, fast {f:.0f} cycles")
