"""v1's causal forward on the H200 (B x H x 1024, d) planned in fast mode, and the representative runs its class
costs make, recorded (the scripts of this folder; SIMGPU_NATIVE=0, as it replaces a compiled function)."""

import simgpu.fast_costs as fast_costs
from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.fast import plan_fast

REPRESENTATIVE = fast_costs._representative  # the function itself, to run further settings with


def recorded_costs(batch: int, heads: int, headdim: int = 128):
    """The arch, the kernel's plan and, in the order made, each representative run's arguments and result."""
    arch = load_arch("h200")
    planned = plan_fast(arch, schedule(arch, "v1", Problem(batch, heads, 1024, headdim, causal=True), {}))
    plan = planned.plans[0]
    calls = []

    def recorded(*args, **kwargs):
        run = REPRESENTATIVE(*args, **kwargs)
        calls.append((args, run))
        return run

    fast_costs._representative = recorded
    try:
        sharers = min(arch.sms, len(plan.kernel.tiles))
        names = fast_costs.metric_names(arch)
        fast_costs.class_costs(arch, plan, arch.clock_hz, 10**9, planned.shares[0], names, sharers)
    finally:
        fast_costs._representative = REPRESENTATIVE
    return arch, plan, calls
