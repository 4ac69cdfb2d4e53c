"""Model side of `validation/probes/wgmma_hold.py` and `wgmma_queue.py`: one SM of the H200, one or two consumer
warpgroups issue S (64 x 128 x d) and P V (64 x d x 128, A from registers) back to back, the second `delay` cycles
later; cycles from each one's first MMA to its release, S complete and P V complete (an Alu marker after each).
Run from the repository root (SIMGPU_NATIVE=0 with a patch applied): `python docs/results/wgmma_queue_33/hold_model.py`.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from simgpu import load_arch
from simgpu.engine import Engine
from simgpu.kernel import BarrierSpec, CtaResources, Kernel, Role
from simgpu.ops import Alu, Delay, Mma, Op, Wait
from simgpu.trace import Trace


def wgmma_hold() -> None:
    arch = load_arch("h200", {"sms": 1})
    for d in (64, 128):
        for warpgroups, delay in ((1, 0), (2, 0), (2, 64), (2, 128), (2, 192), (2, 256), (2, 384), (2, 512), (2, 768)):

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


wgmma_hold()
