"""Helpers shared by the NumPy numerics of standard attention and FlashAttention v1-v4.

One module per job: `precision` (dtypes and rounding), `options` (keyword validation), `stats` (the counts
returned with `return_stats=True`), `blocks` (tiling and causal masks), `tiles` (per-tile math), `exp2`
(FA4's software exp2), `fp8` (FA3's quantization), `hadamard` (incoherent processing), `flash_forward` (the
Q-outer online-softmax loop of v2-v4) and `flash_backward` (the K/V-outer backward loop of v1-v4).
"""
