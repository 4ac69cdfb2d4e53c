"""FlashAttention v4: NumPy numerics (`forward`, `backward`) and the Blackwell schedule the simulator runs."""

from algorithms._lazy import numerics_attributes
from algorithms.v4.schedule import OPTIONS, PROBLEM, VARLEN, schedule

__all__ = ["OPTIONS", "PROBLEM", "VARLEN", "backward", "forward", "schedule"]
__getattr__ = numerics_attributes(__name__)  # `forward`, `backward`: the numerics load on first use
