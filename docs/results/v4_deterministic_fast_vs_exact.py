"""v4's backward on a B200 cut to 33 SMs (2 heads, N = 2048, d = 64): fast over exact mode's cycles, the whole pass
and per kernel, with and without the deterministic dQ order and 2-CTA tiles. Fast mode's representative SMs do not
run the CTAs that release the order's semaphores (`simgpu/engine.py`), so it does not see the order unless the kernel
runs whole (`simgpu.fast_whole.ORDERED_WHOLE_OPS`).
`python docs/results/v4_deterministic_fast_vs_exact.py` (writes nothing; its output is the .txt beside it)."""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.fast_plan import plan_kernel

OPTIONS = ({}, {"deterministic": True}, {"two_cta": True}, {"two_cta": True, "deterministic": True})


def main() -> None:
    arch = load_arch("b200", {"sms": 33})
    problem = Problem(2, 1, 2048, 64, pass_="bwd")
    for options in OPTIONS:
        fast, exact = (simulate(arch, "v4", problem, options, mode=mode) for mode in ("fast", "exact"))
        kernels = ", ".join(f"{f / e:.3f}" for f, e in zip(fast.kernel_cycles, exact.kernel_cycles, strict=True))
        print(f"{options or 'defaults'}: fast / exact cycles {fast.cycles / exact.cycles:.3f} (kernels {kernels})")
    # Whether fast mode runs the deterministic main kernel whole on the whole B200 (`simgpu.fast_whole`).
    b200 = load_arch("b200")
    for batch, heads, seqlen in ((1, 4, 512), (2, 16, 1024), (8, 16, 2048)):
        shape = Problem(batch, heads, seqlen, 128, pass_="bwd")
        whole = plan_kernel(b200, schedule(b200, "v4", shape, {"deterministic": True})[1]).whole
        print(
            f"B200, {batch} x {heads} heads, N = {seqlen}, d = 128: the deterministic main kernel runs whole: {whole}"
        )


if __name__ == "__main__":
    main()
