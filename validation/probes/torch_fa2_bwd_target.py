"""Device probe target: PyTorch's FA2 backward (`scaled_dot_product_attention`, flash backend, bf16, not causal) on
FA2's sweep shape for `headdim` and `seqlen` (16k tokens, hidden 2048): one backward call to warm up, then one more,
each after a forward, so that Nsight Compute can profile the second call's three FA2 kernels (skip the first three
`flash_bwd` launches). Run by `torch_fa2_bwd_ncu.sh`: `python3 validation/probes/torch_fa2_bwd_target.py D N`.
"""

from __future__ import annotations

import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.functional import scaled_dot_product_attention

TOKENS = 16384
HIDDEN = 2048


def main() -> None:
    headdim, seqlen = int(sys.argv[1]), int(sys.argv[2])
    shape = (TOKENS // seqlen, HIDDEN // headdim, seqlen, headdim)
    q, k, v = (torch.randn(shape, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    grad = torch.randn(shape, device="cuda", dtype=torch.bfloat16)
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        for _ in range(2):
            scaled_dot_product_attention(q, k, v).backward(grad)
            torch.cuda.synchronize()
            q.grad = k.grad = v.grad = None


if __name__ == "__main__":
    main()
