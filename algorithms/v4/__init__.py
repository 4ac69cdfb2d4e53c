"""FlashAttention v4: NumPy numerics (`forward`, `backward`) and the Blackwell schedule the simulator runs."""

from algorithms.v4.numerics import backward, forward
from algorithms.v4.schedule import OPTIONS, PROBLEM, schedule

__all__ = ["OPTIONS", "PROBLEM", "backward", "forward", "schedule"]
