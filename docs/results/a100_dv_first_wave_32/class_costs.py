"""A kernel's class costs in fast mode: `python class_costs.py ARCH ALGO PASS B H N D KERNEL` prints the kernel's
tiles, CTAs per SM and launch, then per kind and setting ((1 CTA, all busy), (1 CTA, alone), (2 CTAs, all busy)...)
the CTAs and the times of a slot's first tile, of a further tile and of a lone first tile's tail, then the replay's
(load, store) miss shares."""

import sys

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.fast import plan_fast
from simgpu.fast_costs import class_costs, metric_names


def main() -> None:
    arch_name, algo, pass_ = sys.argv[1:4]
    batch, heads, seqlen, headdim, number = map(int, sys.argv[4:9])
    arch = load_arch(arch_name)
    planned = plan_fast(arch, schedule(arch, algo, Problem(batch, heads, seqlen, headdim, pass_=pass_), {}))
    plan, shares = planned.plans[number], planned.shares[number]
    launch = arch.kernel_launch_s * arch.clock_hz
    tiles = len(plan.kernel.tiles)
    print("kernel", plan.kernel.name, "tiles", tiles, "fit", plan.fit, "whole", plan.whole, "sms", arch.sms, end=" ")
    print("launch cycles", launch)
    sharers = min(arch.sms, tiles)
    costs, _ = class_costs(arch, plan, arch.clock_hz, 10**9, shares, metric_names(arch), sharers)
    for kind, settings in costs.items():
        for setting, cost in enumerate(settings):
            print(kind, setting, "ctas", cost.ctas, "times", [round(x) for x in cost.base[:3]])
    print({tensor: (share.load, share.store) for tensor, share in shares.items()})


if __name__ == "__main__":
    main()
