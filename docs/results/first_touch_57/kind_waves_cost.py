"""The time `KernelPlan.kind_waves` takes, and its answer, for the kernels of several kinds (not run whole) in some
of the speed benchmark's shapes (16k tokens, 16 heads, d = 128) and causal forwards.
`python docs/results/first_touch_57/kind_waves_cost.py > docs/results/first_touch_57/kind_waves_cost.txt`"""

from __future__ import annotations

import time

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.fast_plan import plan_kernel

CASES = (
    ("h200", "v3", False, "bwd"),
    ("h100", "v3", True, "fwd"),
    ("b200", "v4", True, "fwd"),
    ("h100", "v2", True, "fwd"),
)


def main() -> None:
    for arch_name, algo, causal, pass_ in CASES:
        arch = load_arch(arch_name)
        for seqlen in (1024, 16384, 131072):
            problem = Problem(max(1, 16384 // seqlen), 16, seqlen, 128, causal=causal, pass_=pass_)
            for kernel in schedule(arch, algo, problem, {}):
                plan = plan_kernel(arch, kernel)
                if not plan.several_kinds or plan.whole:
                    continue
                started = time.perf_counter()
                waves = plan.kind_waves(arch.sms * plan.fit)
                took = time.perf_counter() - started
                shown = None if waves is None else waves[:4]
                tiles = len(kernel.tiles)
                print(f"{arch_name} {kernel.name} N = {seqlen}: {tiles} tiles, {took * 1e3:.1f} ms, {shown}")


if __name__ == "__main__":
    main()
