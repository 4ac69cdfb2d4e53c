"""Standard attention's softmax kernel (16 CTAs of four one-row warps per SM) on the A100 cut to `sms` SMs, fast and
exact mode, as the rows per SM grow: its cycles in each mode and their ratio, at (SMs, batch, heads, N) = (1, 1, 1, 1k),
(1, 1, 2, 1k), (1, 1, 4, 1k), (8, 2, 2, 1k), (1, 1, 1, 2k), d = 64. Under the scheduler hold a kernel in a steady
state costs the same per row whatever the count; where exact mode's cost per row grows with it, the held work piles
up. The model variant is whatever the environment selects (the patch here).
`python docs/results/hold_38/softmax_kernel_scaling.py`
"""

from simgpu import Problem, load_arch, simulate

for sms, batch, heads, n in ((1, 1, 1, 1024), (1, 1, 2, 1024), (1, 1, 4, 1024), (8, 2, 2, 1024), (1, 1, 1, 2048)):
    arch = load_arch("a100", {"sms": sms})
    fast, exact = (
        simulate(arch, "standard", Problem(batch, heads, n, 64), mode=mode).kernel_cycles[1]
        for mode in ("fast", "exact")
    )
    print(f"{sms} SM(s), {batch} x {heads} x {n}: fast {fast:9.0f}, exact {exact:9.0f} ({fast / exact:.3f})")
