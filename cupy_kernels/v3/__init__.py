"""FlashAttention-3 forward for sm_90a (TMA, wgmma, warp specialization, ping-pong) launched with CuPy: see
``launch``."""
