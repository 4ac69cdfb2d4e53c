"""FlashAttention-3: NumPy numerics (`forward`, `backward`) and the Hopper schedule the simulator runs (`schedule`)."""

from algorithms._lazy import numerics_attributes
from algorithms.v3.schedule import OPTIONS, PROBLEM, schedule

__all__ = ["OPTIONS", "PROBLEM", "backward", "forward", "schedule"]
__getattr__ = numerics_attributes(__name__)  # `forward`, `backward`: the numerics load on first use
