"""FA4's software exp2 on FMA units, and the correctly rounded exp2 that stands for the MUFU unit.

Software path, all in float32 as the kernel computes it:
1. clamp `x >= -127` so that the exponent field below stays a normal one;
2. range reduction `x = j + f`, `j = floor(x)`, `f` in [0, 1) (Cody-Waite: for base 2 the split constant is 1,
   so the reduction is exact). `j` comes from adding `1.5 * 2^23`: the sum's low mantissa bits hold `j` as an
   integer. FA4 adds with round-down; NumPy only rounds to nearest, so we get `round(x)` and correct it to
   the floor where it overshoots;
3. Horner evaluation of `p(f) = 1 + c1 f + ... + cn f^n` with fused multiply-adds (emulated by one float64
   multiply-add rounded once to float32; it differs from a true FMA only in double-rounding ties);
4. `2^j` multiplied in by adding `j << 23` to the float32 bit pattern of `p(f)` (an int32 view).

Coefficients are fitted here, not copied: a Remez exchange on a dense grid for the weighted problem
`min max_f |f / 2^f| * |q(f) - (2^f - 1) / f|`, which is exactly the relative-error minimax of
`p(f) = 1 + f q(f)` against `2^f` with `p(0) = 1` pinned. They are then rounded to float32, as stored in the
kernel. Ignored: subnormal results (x < -126 gives garbage below 2^-126, as on the GPU with flush-to-zero).
"""

from __future__ import annotations

from functools import cache

import numpy as np

__all__ = ["exp2_hardware", "exp2_software", "fit_exp2_poly"]

_ROUND_MAGIC = np.float32(1.5 * 2**23)  # x + this keeps round(x) in the low mantissa bits, for |x| < 2^22
_MANTISSA_BITS = 23


@cache
def fit_exp2_poly(degree: int, grid_points: int = 20001, iterations: int = 50) -> tuple[float, ...]:
    """Minimax-relative-error coefficients `(1, c1, ..., cn)` of 2^f on [0, 1], rounded to float32."""
    if not 1 <= degree <= 8:
        raise ValueError(f"exp2 polynomial degree must be in 1..8, got {degree}")
    f = np.linspace(0.0, 1.0, grid_points)[1:]  # (G,) f = 0 is exact by construction
    weight = f / np.exp2(f)  # (G,)
    target = np.expm1(f * np.log(2.0)) / f  # (G,) (2^f - 1) / f
    powers = f[:, None] ** np.arange(degree)[None, :]  # (G, n)
    n = degree
    ref = np.round(np.linspace(0, f.size - 1, n + 1) * (1 - np.cos(np.linspace(0, np.pi, n + 1))) / 2)
    ref = np.unique(np.clip(ref.astype(int), 0, f.size - 1))  # (n+1,) start: Chebyshev-like points
    if ref.size != n + 1:
        ref = np.linspace(0, f.size - 1, n + 1).astype(int)  # (n+1,)
    coeffs = np.zeros(n)  # (n,)
    for _ in range(iterations):
        signs = (-1.0) ** np.arange(n + 1)  # (n+1,)
        system = np.hstack([weight[ref, None] * powers[ref], -signs[:, None]])  # (n+1, n+1)
        solution = np.linalg.solve(system, weight[ref] * target[ref])  # (n+1,)
        coeffs, level = solution[:n], abs(solution[n])
        err = weight * (powers @ coeffs - target)  # (G,)
        ref = _alternating_extrema(err, n + 1)
        if np.abs(err).max() <= level * (1 + 1e-9):
            break
    return (1.0, *(float(np.float32(c)) for c in coeffs))


def _alternating_extrema(err: np.ndarray, count: int) -> np.ndarray:
    """Indices of `count` extrema of `err` with alternating signs, keeping the largest (Remez exchange)."""
    sign = np.sign(err)  # (G,)
    boundaries = np.flatnonzero(np.diff(sign) != 0) + 1  # (S-1,)
    segments = np.split(np.arange(err.size), boundaries)
    peaks = np.array([seg[np.argmax(np.abs(err[seg]))] for seg in segments])  # (S,)
    while peaks.size > count:
        drop = 0 if abs(err[peaks[0]]) < abs(err[peaks[-1]]) else peaks.size - 1
        peaks = np.delete(peaks, drop)
    return peaks


def _fma32(a: np.ndarray, b: np.ndarray, c: float) -> np.ndarray:
    """float32 `a * b + c` rounded once (the product of two float32 is exact in float64)."""
    return (a.astype(np.float64) * b.astype(np.float64) + c).astype(np.float32)


def exp2_software(x: np.ndarray, degree: int = 3) -> np.ndarray:
    """FA4's polynomial exp2 of float32 `x` (any shape), returned as float32."""
    coeffs = fit_exp2_poly(degree)
    x32 = np.maximum(np.asarray(x, dtype=np.float32), np.float32(-127.0))  # (...)
    shifted = x32 + _ROUND_MAGIC  # (...) float32 add: round-to-nearest of x in the low bits
    j = shifted.view(np.int32) - _ROUND_MAGIC.view(np.int32)  # (...) round(x) as int32
    rounded = shifted - _ROUND_MAGIC  # (...) round(x) as float32, exact
    overshoot = rounded > x32  # (...) round went up: step back to floor
    j = j - overshoot.astype(np.int32)  # (...)
    frac = x32 - (rounded - overshoot.astype(np.float32))  # (...) in [0, 1), exact
    poly = np.full(frac.shape, np.float32(coeffs[-1]), dtype=np.float32)  # (...)
    for c in reversed(coeffs[:-1]):
        poly = _fma32(poly, frac, c)  # (...) Horner step on the FMA pipe
    bits = poly.view(np.int32) + (j << _MANTISSA_BITS)  # (...) add j to the exponent field
    return bits.view(np.float32)


def exp2_hardware(x: np.ndarray) -> np.ndarray:
    """Correctly rounded exp2 in the dtype of `x` (float32 via float64; float64 as is): the MUFU stand-in."""
    if x.dtype == np.float64:
        return np.exp2(x)
    return np.exp2(x.astype(np.float64)).astype(np.float32)
