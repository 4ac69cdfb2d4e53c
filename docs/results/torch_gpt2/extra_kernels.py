"""The bytes that three of PyTorch 2.11's backward kernels move at GPT-2 medium's shape with L2 off (their loop
counts): the product T = dP * P before the softmax backward, autograd's fill of an N x N buffer, and the mask's
backward (`algorithms.standard.pytorch`), none of which FA1's Fig. 1 names. Sums every load and store of every tile.
Run from the repository root:
`python docs/results/torch_gpt2/extra_kernels.py > docs/results/torch_gpt2/extra_kernels.txt`.
"""

from __future__ import annotations

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.ops import Load, Store

EXTRA = ("torch_softmax_mul", "torch_mask_fill", "torch_mask_bwd")


def main() -> None:
    problem = Problem(64, 16, 1024, 64, causal=True, dtype="fp16", pass_="bwd")
    kernels = schedule(load_arch("a100"), "standard", problem, {"framework": "pytorch", "dropout": 0.1})
    total = 0.0
    for kernel in kernels:
        if kernel.name not in EXTRA:
            continue
        moved = sum(
            op.nbytes
            for tile in kernel.tiles
            for role in kernel.roles
            for op in role.program(tile)
            if isinstance(op, (Load, Store))
        )
        total += moved
        print(f"{kernel.name}: {moved / 1e9:.2f} GB")
    print(f"together: {total / 1e9:.2f} GB")


if __name__ == "__main__":
    main()
