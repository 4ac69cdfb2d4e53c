"""FlashAttention v1: NumPy numerics (`forward`, `backward`) and the schedule the simulator runs (`schedule`)."""

from algorithms.v1.numerics import backward, forward
from algorithms.v1.schedule import OPTIONS, PROBLEM, schedule

__all__ = ["OPTIONS", "PROBLEM", "backward", "forward", "schedule"]
