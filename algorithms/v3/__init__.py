"""FlashAttention-3: NumPy numerics (`forward`, `backward`) and the Hopper schedule the simulator runs (`schedule`)."""

from algorithms.v3.numerics import backward, forward
from algorithms.v3.schedule import OPTIONS, PROBLEM, schedule

__all__ = ["OPTIONS", "PROBLEM", "backward", "forward", "schedule"]
