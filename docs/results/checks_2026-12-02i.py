"""Side checks of the eighth session that the note quotes, model side only:
1. `validation/probes/wgmma_hold.py` in the model: one SM of the H200, one or two consumer warpgroups issue S
   (64 x 128 x d) and P V (64 x d x 128, A from registers) back to back, the second `delay` cycles later; cycles
   from each one's first MMA to its release, S complete and P V complete (an Alu marker after each step).
   Measured (`validation/h200/wgmma_hold_h200.csv`): d=64 one 387 / 393 / 627, two 900 / 906 / 1140; d=128 one
   681 / 687 / 1145, two 1697 / 1703 / 2175.
2. v3 FP8 forward on the H100 (fast mode, 16k tokens, 16k per sequence) at d=128 and d=256.
3. v3 and v2 backward on the H100 (fast mode, 1 x 16 heads, N=4096, d=128).
4. The tensor-map wait on the B200: v4 forward, 1 x 4 heads, N=2048, d=128, exact and fast, with the wait and with
   it set to nothing (`Sm._tensor_map_wait` replaced for the comparison only).
Run from the repository root: `python docs/results/checks_2026-12-02i.py > docs/results/checks_2026-12-02i.txt`."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import simgpu.sm as sm_module
from simgpu import Problem, load_arch, simulate
from simgpu.engine import Engine
from simgpu.kernel import BarrierSpec, CtaResources, Kernel, Role
from simgpu.ops import Alu, Delay, Mma, Op, Wait
from simgpu.trace import Trace


def wgmma_hold(settings: Sequence[tuple[int, int]] = ((1, 0), (2, 0), (2, 256), (2, 512))) -> None:
    """Per head dimension and (warpgroups, delay of the second) in `settings`, the model's release, S and P V."""
    arch = load_arch("h200", {"sms": 1})
    for d in (64, 128):
        for warpgroups, delay in settings:

            def role(i: int, d: int = d, delay: int = delay) -> Role:
                def program(tile: Hashable) -> Sequence[Op]:
                    late = (Delay(delay),) if i == 1 and delay else ()
                    return (*late, Mma(64, 128, d, "bf16", arrive=f"s{i}"),
                            Mma(64, d, 128, "bf16", a="reg", arrive=f"pv{i}"),
                            Alu(1), Wait(f"s{i}"), Alu(1), Wait(f"pv{i}"), Alu(1))  # fmt: skip

                return Role(f"wg{i}", 4, program)

            barriers = tuple(BarrierSpec(f"{name}{i}") for i in range(warpgroups) for name in ("s", "pv"))
            kernel = Kernel("hold", (0,), CtaResources(128 * warpgroups, 128, 100_000),
                            tuple(role(i) for i in range(warpgroups)), barriers)  # fmt: skip
            trace = Trace(sms=(0,))
            Engine(arch, trace=trace).run([kernel])
            parts = []
            for i in range(warpgroups):
                spans = sorted((s for s in trace.spans if s.track.endswith(f"wg{i}")), key=lambda s: s.start_cycles)
                start = next(s.start_cycles for s in spans if s.name == "Mma")
                marks = [s.start_cycles - start for s in spans if s.name == "Alu"]
                parts.append(f"warpgroup {i}: released {marks[0]:.0f}, S {marks[1]:.0f}, P V {marks[2]:.0f}")
            print(f"wgmma hold d={d} warpgroups={warpgroups} delay={delay}: " + "; ".join(parts))


def levels() -> None:
    for d in (128, 256):
        problem = Problem(1, 2048 // d, 16384, d, dtype="fp8")
        result = simulate("h100", "v3", problem)
        tflops = result.flops / result.time_s / 1e12
        print(f"v3 fp8 forward h100 d={d} N=16k: {tflops:.0f} TFLOP/s, bound by {result.bottleneck}")
    for algo in ("v3", "v2"):
        result = simulate("h100", algo, Problem(1, 16, 4096, 128, pass_="bwd"))
        print(f"{algo} backward h100 1x16x4096 d=128: {result.flops / result.time_s / 1e12:.1f} TFLOP/s")


def tensor_map_wait() -> None:
    problem = Problem(1, 4, 2048, 128)
    for mode in ("exact", "fast"):
        with_wait = simulate("b200", "v4", problem, mode=mode).cycles
        original = sm_module.Sm._tensor_map_wait
        sm_module.Sm._tensor_map_wait = lambda self, op: 0.0  # type: ignore[method-assign]
        try:
            without = simulate("b200", "v4", problem, mode=mode).cycles
        finally:
            sm_module.Sm._tensor_map_wait = original  # type: ignore[method-assign]
        print(f"v4 b200 1x4x2048 {mode}: {with_wait:.0f} cycles with the map wait, {without:.0f} without "
              f"({100 * (with_wait / without - 1):+.2f}%)")  # fmt: skip


if __name__ == "__main__":
    wgmma_hold()
    levels()
    tensor_map_wait()
