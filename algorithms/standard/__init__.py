"""Standard attention: NumPy numerics (`forward`, `backward`) and the schedule the simulator runs (`schedule`)."""

from algorithms.standard.numerics import backward, forward
from algorithms.standard.schedule import OPTIONS, PROBLEM, schedule

__all__ = ["OPTIONS", "PROBLEM", "backward", "forward", "schedule"]
