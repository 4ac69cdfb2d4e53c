"""The prologue of a warp-specialized CTA, as FA3 and our v3 kernel run it once per CTA before their first tile:
thread 0 initialises the mbarriers and fences them, `__syncthreads`, each warpgroup resizes its registers
(`setmaxnreg`, with warp specialization only), and a role that issues TMA copies acquires each tensor map it uses
(`fence.proxy.tensormap`). The costs are the arch's measured `latency` keys; an arch without them (not measured)
gets no prologue. A `Delay`: these are waits on fences and barriers, no unit is busy."""

from __future__ import annotations

from simgpu.arch import Arch
from simgpu.ops import Delay, Op


def cta_setup(arch: Arch, tensor_maps: int, setmaxnreg: bool = True) -> tuple[Op, ...]:
    """The `Role.setup` of a role that acquires `tensor_maps` maps (0: it issues no TMA copies)."""
    latency = arch.latency
    if latency is None:
        return ()
    cycles = (
        (latency.barrier_init_cycles or 0.0)
        + (latency.cta_sync_cycles or 0.0)
        + ((latency.setmaxnreg_cycles or 0.0) if setmaxnreg else 0.0)
        + tensor_maps * (latency.tensormap_fence_cycles or 0.0)
    )
    return (Delay(cycles),) if cycles else ()
