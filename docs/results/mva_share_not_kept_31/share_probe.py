"""One kernel's representative SM (`simgpu.fast_costs`) run at a range of bandwidth shares, against exact mode's time
for that kernel in the whole run: its cycles and the share of the chip's HBM and L2 that the busy SMs would use.

`python share_probe.py ARCH ALGO PASS BATCH HEADS SEQLEN HEADDIM KERNEL` (KERNEL: its position in the run).
"""

import sys
from dataclasses import replace

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.fast import plan_fast
from simgpu.kernel import with_programs


def main() -> None:
    arch_name, algo, pass_ = sys.argv[1:4]
    batch, heads, seqlen, headdim, number = map(int, sys.argv[4:9])
    arch = load_arch(arch_name)
    kernels = schedule(arch, algo, Problem(batch, heads, seqlen, headdim, pass_=pass_), {})
    exact = Engine(arch).run(kernels)
    planned = plan_fast(arch, kernels)
    plan, shares = planned.plans[number], planned.shares[number]
    tile = plan.representative(plan.kinds[0])
    misses = {tensor: round(share.load, 3) for tensor, share in shares.items()}
    print(f"{plan.kernel.name}: {len(plan.kernel.tiles)} tiles, {plan.fit} CTAs per SM at most, exact mode's kernel")
    print(f"cycles {exact.kernel_cycles[number]:.0f}; load miss shares {misses}")
    folded = with_programs(plan.kernel, tile.marked)
    busy = min(arch.sms, len(plan.kernel.tiles))
    for ctas in sorted({1, plan.fit}):
        for share in (1 / busy, 1.5 / busy, 2 / busy, 3 / busy, 4 / busy, 1.0):
            engine = Engine(
                arch,
                arch.clock_hz,
                None,
                10**8,
                sms=1,
                miss_shares=shares,
                max_ctas_per_sm=ctas,
                bandwidth_share=share,
                traffic_share=1 / busy,
            )
            stats = engine.run([replace(folded, tiles=range(ctas))])
            hbm = busy * stats.units["hbm"].amount / arch.hbm_bytes_per_cycle(arch.clock_hz) / stats.cycles
            l2 = busy * stats.units["l2"].amount / arch.l2_bytes_per_cycle(arch.clock_hz) / stats.cycles
            print(
                f"CTAs {ctas:2d}, share {share * busy:6.1f} / {busy}: {stats.cycles:8.0f} cycles; "
                f"the busy SMs would use {hbm:.3f} of HBM, {l2:.3f} of L2"
            )


if __name__ == "__main__":
    main()
