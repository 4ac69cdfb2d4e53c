"""Instruction count of FA4's software exp2 (`algorithms._numerics.exp2`), for schedules that put it on the FMA pipe.

One emulated 2^x, as the kernel computes it:
- range reduction, FMA pipe: add 1.5 * 2^23 with round-down (floor(x) in the low mantissa bits), subtract it back
  (floor(x) as a float), x - floor(x) (the fraction f): 3 FADD;
- Horner evaluation of p(f) = 1 + c1 f + ... + cn f^n: n FFMA;
- ALU: the clamp x >= -127 (one FMNMX) and the exponent insert (shift floor(x) left by 23, integer-add it to the
  bit pattern of p(f)): 3 ops.
Ignored: packed FFMA2 issue (it halves issue slots, not FMA-pipe lanes).
"""

from __future__ import annotations

RANGE_REDUCTION_FMA = 3
EXPONENT_INSERT_ALU = 3  # clamp + shift + integer add


def fma_per_exp2(degree: int) -> int:
    """FMA-pipe lane ops of one software exp2 with a polynomial of `degree` (3 + degree: 6 for FA4's cubic)."""
    return RANGE_REDUCTION_FMA + degree
