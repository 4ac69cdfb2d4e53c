"""The model's side of `validation/probes/wgmma_queue.py --softmax` (thirty-third session's rows,
`validation/h200/wgmma_queue/wgmma_queue_softmax_h200.csv`): one SM of the H200; warpgroup 0 issues our FA3
consumer's S (64 x 128 x d) and P V (64 x d x 128, A from registers) at the start, warpgroup 1 first runs 0, 1 or 2
of the v3 schedule's softmaxes of a 64 x 128 tile (its row-max and exp passes, no rescale of O) and then the same
GEMMs. Per head dimension and count: warpgroup 0's S and P V complete, and warpgroup 1's start of its GEMMs (the
time its softmaxes took, the first beside warpgroup 0's GEMMs), model against chip (cycles after warpgroup 0's
start; the chip's are the medians of its rounds). What it checks: how much a softmax slows beside a GEMM block, the
state of a ping-pong consumer's softmax. Run from the repository root:
`python docs/results/basins_36/softmax_beside_gemm.py`.
"""

from __future__ import annotations

import csv
from collections.abc import Hashable, Sequence
from pathlib import Path

from algorithms._schedule.softmax import online_softmax
from simgpu.arch import load_arch
from simgpu.engine import Engine
from simgpu.kernel import BarrierSpec, CtaResources, Kernel, Role
from simgpu.ops import Alu, Mma, Op, Wait
from simgpu.trace import Trace

CHIP = Path(__file__).resolve().parents[3] / "validation" / "h200" / "wgmma_queue" / "wgmma_queue_softmax_h200.csv"


def gemms(i: int, d: int) -> tuple[Op, ...]:
    """S and P V issued back to back, then a marker after each completes (as hold_model.py's roles)."""
    return (Mma(64, 128, d, "bf16", arrive=f"s{i}"), Mma(64, d, 128, "bf16", a="reg", arrive=f"pv{i}"),
            Wait(f"s{i}"), Alu(1), Wait(f"pv{i}"), Alu(1))  # fmt: skip


def model(d: int, softmaxes: int) -> tuple[float, float, float]:
    """Warpgroup 0's S and P V complete and warpgroup 1's first MMA, in cycles after warpgroup 0's first MMA."""
    softmax = online_softmax(64, 128, d, masked=False, rescale_o=False)

    def program0(tile: Hashable) -> Sequence[Op]:
        return gemms(0, d)

    def program1(tile: Hashable) -> Sequence[Op]:
        return (*(softmax * softmaxes), *gemms(1, d))

    roles = (Role("wg0", 4, program0), Role("wg1", 4, program1))
    barriers = tuple(BarrierSpec(f"{name}{i}") for i in range(2) for name in ("s", "pv"))
    kernel = Kernel("beside", (0,), CtaResources(256, 168, 100_000), roles, barriers)
    trace = Trace(sms=(0,))
    Engine(load_arch("h200", {"sms": 1}), trace=trace).run([kernel])
    spans = {
        g: sorted((s for s in trace.spans if s.track.endswith(g)), key=lambda s: s.start_cycles) for g in ("wg0", "wg1")
    }
    start = next(s.start_cycles for s in spans["wg0"] if s.name == "Mma")
    s_done, pv_done = (s.start_cycles - start for s in spans["wg0"] if s.name == "Alu")
    gemm1 = next(s.start_cycles for s in spans["wg1"] if s.name == "Mma") - start
    return s_done, pv_done, gemm1


def main() -> None:
    chip: dict[tuple[int, int, int, str], float] = {}
    with CHIP.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["warpgroups"] == "2":
                key = (int(row["headdim"]), int(row["delay_cycles"]), int(row["warpgroup"]), row["stamp"])
                chip[key] = float(row["cycles"])
    for d in (64, 128):
        for softmaxes in (0, 1, 2):
            s_done, pv_done, gemm1 = model(d, softmaxes)
            measured = (
                chip[d, softmaxes, 0, "s_done"],
                chip[d, softmaxes, 0, "pv_done"],
                chip[d, softmaxes, 1, "start"],
            )
            names = ("S done", "P V done", "warpgroup 1's GEMMs")
            cells = [
                f"{name} {m:5.0f} (chip {c:5.0f})"
                for name, m, c in zip(names, (s_done, pv_done, gemm1), measured, strict=True)
            ]
            print(f"d={d:3d}, {softmaxes} softmax(es) in warpgroup 1: " + ", ".join(cells))


if __name__ == "__main__":
    main()
