"""The clock a run executes at: fixed, or lowered by the power limit as tensor-core activity rises.

Tensor-core activity u is the share of the chip's native tensor rate a run uses (its MMA FLOPs over cycles x SMs x
the native FLOPs per cycle of each dtype), so mma.sync at two thirds of wgmma's rate is u = 2/3 even when those
units are fully busy. Near the power limit dynamic power goes as activity x f x V^2 with V rising with f, so
u x f^3 stays constant: f(u) = min(clock_hz, tensor_saturated_clock_hz x u^(-1/3)), with the saturated clock
measured at u = 1. On the H200 this law predicts 1829 MHz for mma.sync at u = 2/3 from the 1598 MHz of wgmma at
u = 1; the SM cycle counter measured 1820 MHz.

A run that uses the tensor cores at all (u > 0) runs at most at `tensor_active_clock_hz` where the arch gives it:
the cycle-counted clocks of every timed kernel on the H200 and the H100 sit near 1.80-1.83 GHz whatever their u
(0.01 for FA1's kernels, 0.5 for FA3's at d = 64), where the law alone lets them reach the card's 1980 MHz, while
standard attention's softmax kernel, which uses no tensor core, runs at 1975-1994 MHz
(`docs/results/clock_49/tensor_active_clock.txt`: the law's clock for each run's measured u was 9.4% above the
counted one on the H200's 384 tensor runs, 1.7% with the ceiling). A probe on an H100 isolates the rule: FFMA chains
ran at 1971-1990 MHz alone and at 1832-1841 MHz with one mma.sync pair per 1024 loop iterations, u = 1.5e-5
(`validation/h200/tensor_clock_on_h100/`). Ignored: HBM, L2 and the softmax's pipes'
power (attention at high u runs up to 13% below the law's clock: the largest errors left), temperature, the
controller's reaction time (short bursts run faster), and that a run of several kernels changes its clock from one
kernel to the next (one clock per run: standard attention's three kernels run at the ceiling, its softmax too).
"""

from __future__ import annotations

from collections.abc import Sequence

from simgpu.arch import Arch
from simgpu.kernel import Kernel
from simgpu.ops import Mma, Op, Repeat

POWER_LAW_EXPONENT = 1.0 / 3.0  # f^3 scaling of dynamic power when voltage tracks frequency
CLOCK_TOLERANCE = 2e-3  # a run is re-run at another clock only when that moves it by more than this fraction


def power_limited_clock_hz(arch: Arch, tensor_activity: float) -> float:
    if arch.power is None or tensor_activity <= 0.0:
        return arch.clock_hz
    saturated = arch.power.tensor_saturated_clock_hz * float(min(tensor_activity, 1.0) ** -POWER_LAW_EXPONENT)
    active = arch.power.tensor_active_clock_hz
    ceiling = arch.clock_hz if active is None else min(arch.clock_hz, active)
    return min(ceiling, saturated)


def starting_clock_hz(arch: Arch, kernels: Sequence[Kernel]) -> float:
    """The clock a run is simulated at first (`simgpu.api.simulate` re-runs it where `power_limited_clock_hz` of its
    tensor activity moves that by more than `CLOCK_TOLERANCE`): the tensor-active ceiling where a kernel's first tile
    issues an MMA and the ceiling lies below `clock_hz` by more than the tolerance, else `clock_hz`. A tensor run
    whose activity leaves the law above the ceiling then runs once, not first at `clock_hz` and again."""
    active = arch.power.tensor_active_clock_hz if arch.power is not None else None
    if active is None or arch.clock_hz - active <= CLOCK_TOLERANCE * arch.clock_hz:
        return arch.clock_hz
    issues_mma = any(_issues_mma(role.program(kernel.tiles[0])) for kernel in kernels for role in kernel.roles)
    return active if issues_mma else arch.clock_hz


def _issues_mma(ops: Sequence[Op]) -> bool:
    """Whether the ops (a loop's first iteration for each loop) hold an MMA."""
    for op in ops:
        kind = type(op)
        if kind is Mma:
            return True
        if kind is Repeat:
            loop: Repeat = op  # type: ignore[assignment]
            if loop.count and _issues_mma(loop.body(0)):
                return True
    return False
