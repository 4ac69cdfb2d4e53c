"""Exact mode's per-kernel cycles and CTAs per SM of standard attention's forward on the whole H200 at 32 x 32 heads x
512, d = 64 (the first standard shape of validation/h200/kernels_h200.csv): whether the scheduler hold slows the
row-wise softmax kernel (16 CTAs of 4 one-warp rows per SM) where the chip's HBM bounds it. The model variant is
whatever the environment selects (the patch here, SIMGPU_NATIVE=0). `python docs/results/hold_38/exact_h200_standard.py`
"""

from simgpu import Problem, load_arch, simulate

result = simulate(load_arch("h200"), "standard", Problem(32, 32, 512, 64), mode="exact")
print("exact", [round(c) for c in result.kernel_cycles], result.ctas_per_sm)
