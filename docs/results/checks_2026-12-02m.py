"""Side check of the tenth session: the model's side of `validation/probes/v3_softmax_groups.py`.

One, two or three warpgroups each loop over the v3 schedule's softmax of a 64 x 128 tile (`online_softmax` without
O's rescale: the row-max pass, then the exp pass with P's packing) and the probe's `s_acc *= 8` (one FMUL per score),
on one SM of the H200 model (exact mode), in the probe's four builds: whole, without the ex2 (`ablate` 2), without
the row-max pass (32), without both (34). Then `pass_pair`: the exp pass (with the packing and the FMUL) and the
row-max pass in separate warpgroups, alone, one of each at once, two of one kind. Prints cycles per iteration of the
slowest warpgroup, model against `validation/h200/v3_softmax_groups_h200.csv` and `v3_pass_pair_h200.csv`.
Run from the repository root: `python docs/results/checks_2026-12-02m.py > docs/results/checks_2026-12-02m.txt`."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import replace

from algorithms._schedule.softmax import online_softmax
from simgpu.arch import load_arch
from simgpu.engine import Engine
from simgpu.kernel import CtaResources, Kernel, Role
from simgpu.ops import Chain, Op, Repeat, Vector
from simgpu.trace import Trace

ITERS = 40
ROW_MAX, QUAD_MAX, EXPS = online_softmax(64, 128, 64, masked=False, rescale_o=False)
NO_EX2 = replace(EXPS, ex2=0.0, chain=replace(EXPS.chain, mufu=0) if EXPS.chain is not None else None)
NEXT_S = Vector(fma=64 * 128, chain=Chain(fma=1))  # the probe's s_acc *= 8
EXP_PASS: tuple[Op, ...] = (EXPS, NEXT_S)
MAX_PASS: tuple[Op, ...] = (ROW_MAX, QUAD_MAX)


def build(mask: int) -> tuple[Op, ...]:
    """The probe's softmax loop body in build `mask` (FA3_ABLATE bits 2: no ex2, 32: no row-max pass)."""
    return (() if mask & 32 else MAX_PASS) + ((NO_EX2,) if mask & 2 else (EXPS,)) + (NEXT_S,)


def cycles_per_iter(bodies: Sequence[tuple[Op, ...]]) -> list[float]:
    """Each warpgroup's cycles per iteration when one warpgroup per body loops over it, all on one SM."""
    roles = tuple(
        Role(f"wg{g}", 4, lambda tile, body=body: (Repeat(ITERS, lambda i: body),)) for g, body in enumerate(bodies)
    )
    trace = Trace()
    Engine(load_arch("h200"), sms=1, trace=trace).run(
        [Kernel("groups", (0,), CtaResources(128 * len(bodies), 168, 30000), roles, ())]
    )
    per = []
    for g in range(len(bodies)):
        spans = [s for s in trace.spans if s.track.endswith(f"wg{g}")]
        per.append((max(s.end_cycles for s in spans) - min(s.start_cycles for s in spans)) / ITERS)
    return per


with open("validation/h200/v3_softmax_groups_h200.csv", newline="") as handle:
    for row in csv.DictReader(handle):
        mask, wgs = int(row["ablate"]), int(row["warpgroups"])
        model, measured = max(cycles_per_iter([build(mask)] * wgs)), float(row["cycles_per_iter"])
        print(f"softmax {row['build']:>18}, {wgs} warpgroup(s): model {model:6.0f}, measured {measured:6.0f} "
              f"({model / measured - 1:+.1%})")  # fmt: skip
PASSES = {"exp": EXP_PASS, "max": MAX_PASS}
with open("validation/h200/v3_pass_pair_h200.csv", newline="") as handle:
    rows = list(csv.DictReader(handle))
for mode in sorted({row["mode"] for row in rows}):
    group = [row for row in rows if row["mode"] == mode]
    model = cycles_per_iter([PASSES[row["pass"]] for row in group])
    for row, m in zip(group, model, strict=True):
        measured = float(row["cycles_per_iter"])
        print(f"pass pair {row['warpgroups']:>9}, warpgroup {row['warpgroup']} ({row['pass']}): model {m:6.0f}, "
              f"measured {measured:6.0f} ({m / measured - 1:+.1%})")  # fmt: skip
