"""Standard attention: NumPy numerics (`forward`, `backward`) re-exported from `.numerics`."""

from .numerics import backward, forward

__all__ = ["backward", "forward"]
