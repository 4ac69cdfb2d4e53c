"""The clock a run executes at: fixed, or lowered by the power limit as tensor-core activity rises.

With an arch `power` section the clock falls linearly with the tensor-core busy fraction u, from `clock_hz` at
u = 0 to `power.tensor_saturated_clock_hz` at u = 1 (both measured on the H200). This first-order model stands in
for a power model whose dynamic term is dominated by the tensor cores; ignored: HBM and MUFU power, temperature,
and the time the controller takes to react (short bursts run faster than the sustained clock).
"""

from __future__ import annotations

from simgpu.arch import Arch


def power_limited_clock_hz(arch: Arch, tensor_busy_fraction: float) -> float:
    if arch.power is None:
        return arch.clock_hz
    u = min(max(tensor_busy_fraction, 0.0), 1.0)
    return arch.clock_hz - (arch.clock_hz - arch.power.tensor_saturated_clock_hz) * u
