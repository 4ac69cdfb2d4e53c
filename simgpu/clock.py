"""The clock a run executes at: fixed, or lowered by the power limit as tensor-core activity rises.

Tensor-core activity u is the share of the chip's native tensor rate a run uses (its MMA FLOPs over cycles x SMs x
the native FLOPs per cycle of each dtype), so mma.sync at two thirds of wgmma's rate is u = 2/3 even when those
units are fully busy. Near the power limit dynamic power goes as activity x f x V^2 with V rising with f, so
u x f^3 stays constant: f(u) = min(clock_hz, tensor_saturated_clock_hz x u^(-1/3)), with the saturated clock
measured at u = 1. On the H200 this law predicts 1829 MHz for mma.sync at u = 2/3 from the 1598 MHz of wgmma at
u = 1; the SM cycle counter measured 1820 MHz. Ignored: HBM and L2 power (a GEMM with heavy memory traffic runs
slower than the law says), temperature, and the controller's reaction time (short bursts run faster).
"""

from __future__ import annotations

from simgpu.arch import Arch

POWER_LAW_EXPONENT = 1.0 / 3.0  # f^3 scaling of dynamic power when voltage tracks frequency


def power_limited_clock_hz(arch: Arch, tensor_activity: float) -> float:
    if arch.power is None or tensor_activity <= 0.0:
        return arch.clock_hz
    saturated = arch.power.tensor_saturated_clock_hz * float(min(tensor_activity, 1.0) ** -POWER_LAW_EXPONENT)
    return min(arch.clock_hz, saturated)
