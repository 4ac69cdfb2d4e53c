"""FlashAttention-1 forward in Algorithm 1's loop order (K/V outer, Q inner, O/l/m in HBM): see ``launch``."""
