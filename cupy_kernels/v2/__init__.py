"""FlashAttention-2 forward and backward (mma.sync, cp.async) launched with CuPy: see ``launch``."""
