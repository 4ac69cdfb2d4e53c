"""Standard attention: S = Q K^T and P = softmax(S) through HBM, three mma.sync kernels: see ``launch``."""
