"""Side check of the seventh session: the model's side of `validation/probes/v3_pieces.py`. One warpgroup runs the
v3 schedule's softmax of a 64 x 128 tile (`online_softmax` without O's rescale, which includes P's packing) in a
loop, alone or beside a warpgroup issuing wgmma m64n128k16 SS batches of 4 (K = 64), each waited for or two in
flight, on one SM of the H200 model (exact mode). Prints cycles per softmax and the tensor cores' busy share over
the softmax's span, against `validation/h200/v3_pieces_h200.csv`.
Run from the repository root: `python docs/results/checks_2026-12-02f.py > docs/results/checks_2026-12-02f.txt`."""

from __future__ import annotations

import csv
from collections.abc import Sequence

from algorithms._schedule.softmax import online_softmax
from simgpu.arch import load_arch
from simgpu.engine import Engine
from simgpu.kernel import BarrierSpec, CtaResources, Kernel, Role
from simgpu.ops import Mma, Op, Repeat, Wait
from simgpu.trace import Trace

ITERS = 50
SOFTMAX = online_softmax(64, 128, 64, masked=False, rescale_o=False)
with open("validation/h200/v3_pieces_h200.csv", newline="") as handle:
    MEASURED = {row["beside"]: row for row in csv.DictReader(handle) if row["piece"] == "softmax_pack_64x128"}


def kernel(beside: int) -> Kernel:
    """`beside` 0: the softmax alone; 1: beside one wgmma batch at a time; 2: beside two batches in flight."""

    def batch(i: int) -> Sequence[Op]:
        mma = Mma(64, 128, 64, "bf16", a="smem", b="smem", arrive=("g", i % 2))
        if beside == 1:
            return (mma, Wait(("g", i % 2)))
        return (mma, Wait(("g", (i - 1) % 2))) if i else (mma,)

    roles = [Role("softmax", 4, lambda tile: (Repeat(ITERS, lambda i: SOFTMAX),))]
    if beside:
        roles.append(Role("tc", 4, lambda tile: (Repeat(ITERS * 8, batch),)))
    return Kernel(f"beside{beside}", (0,), CtaResources(128 * len(roles), 168, 30000), tuple(roles),
                  (BarrierSpec("g", slots=2),))  # fmt: skip


for beside, label in ((0, "nothing"), (1, "wgmma_ss_one_batch"), (2, "wgmma_ss_two_batches")):
    trace = Trace()
    Engine(load_arch("h200"), sms=1, trace=trace).run([kernel(beside)])
    spans = [s for s in trace.spans if s.track.endswith("softmax")]
    start, end = min(s.start_cycles for s in spans), max(s.end_cycles for s in spans)
    tensor = sum(
        min(s.end_cycles, end) - max(s.start_cycles, start)
        for s in trace.spans
        if s.track == "unit tensor" and s.end_cycles > start and s.start_cycles < end
    )
    cycles, busy = float(MEASURED[label]["cycles_per_iter"]), float(MEASURED[label]["beside_tensor_busy"])
    model = (end - start) / ITERS
    print(f"softmax beside {label}: model {model:.0f} cycles (tensor {tensor / (end - start):.0%} busy), "
          f"measured {cycles:.0f} ({busy:.0%})")  # fmt: skip
