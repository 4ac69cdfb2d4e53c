"""Side check of the eighth session: the model's side of `validation/probes/loaded_latency.py`. One SM (the prober)
copies 24 boxes of 16 KiB from HBM one after the other through TMA while the other 131 SMs of an H200 stream
16 KiB boxes from HBM (each its own, `inflight` at a time) or from 32 boxes shared by all (L2), or idle. Prints
the prober's median cycles per copy (from one copy's issue to the next's, as the probe's issue-to-data plus the
loop) and the HBM's busy fraction. Measured on the H200 (`validation/h200/loaded_latency_h200.csv`): 1080 idle,
1013-1170 with L2 streaming, 1507 / 1673 / 2442 with 1 / 2 / 4 boxes in flight per SM from HBM.
Run from the repository root: `python docs/results/checks_2026-12-02h.py > docs/results/checks_2026-12-02h.txt`
(eighth session), and `> docs/results/checks_2026-12-02w.txt` (eleventh: with the HBM's loaded latency)."""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Hashable, Sequence

from simgpu.arch import load_arch
from simgpu.engine import Engine
from simgpu.kernel import BarrierSpec, CtaResources, Kernel, Role
from simgpu.ops import Alu, Delay, Load, Op, Wait
from simgpu.trace import Trace

BOX_BYTES = 16384
PROBES = 24
ROUNDS = 60


def run(source: str, inflight: int) -> None:
    def program(tile: Hashable) -> Sequence[Op]:
        if tile == 0:  # the prober: an Alu marker before each copy
            ops: list[Op] = [Delay(20_000)]
            for p in range(PROBES):
                ops += [Alu(1), Load("P", p, BOX_BYTES, engine="tma", arrive="p"), Wait("p")]
            return (*ops, Alu(1))
        ops = []
        for r in range(ROUNDS if inflight else 0):
            for b in range(inflight):
                i = r * inflight + b
                key = (tile, i) if source == "hbm" else i % 32
                ops.append(Load(source, key, BOX_BYTES, engine="tma", arrive="s"))
            ops.append(Wait("s"))
        return tuple(ops)

    barriers = (BarrierSpec("p"), BarrierSpec("s", arrivals=max(inflight, 1)))
    kernel = Kernel("loaded", tuple(range(132)), CtaResources(32, 32, 160 * 1024), (Role("r", 1, program),), barriers)
    trace = Trace(sms=(0,))
    stats = Engine(load_arch("h200"), trace=trace).run([kernel])
    marks = sorted(span.start_cycles for span in trace.spans if span.name == "Alu")
    per_copy = [b - a for a, b in itertools.pairwise(marks[1:])]  # after the first copy (its map)
    busy = stats.units["hbm"].busy_cycles / stats.cycles
    median = statistics.median(per_copy)
    print(f"{source} x {inflight}: prober median {median:.0f} cycles per copy, HBM busy {busy:.2f}")


for setting in (("idle", 0), ("l2", 1), ("l2", 4), ("hbm", 1), ("hbm", 2), ("hbm", 4)):
    run(*setting)
