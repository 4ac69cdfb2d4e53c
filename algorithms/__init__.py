"""Attention algorithms (standard, FlashAttention v1-v4) and a GEMM: NumPy numerics and schedules.

Importing this package imports nothing heavy: each algorithm is its own module or package, so the numerics can run
where only NumPy is installed (for example next to a GPU, to check kernels against `algorithms.reference`).
"""
