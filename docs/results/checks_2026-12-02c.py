"""Side check of the seventh session, re-run in the eighth: v3's error by variant and by sequence length, and its
ping-pong and intra-warpgroup-overlap gains, measured on our kernel and predicted (exact mode), from a committed
validation (default `validation/h200/validation_2026-12-02c/v3_exact.jsonl`): the mean over the sweep's
(seqlen, headdim, causal) of time(mechanism off) / time(on) - 1. With the default it also compares that sweep's two
timing runs. Run from the repository root:
`python docs/results/checks_2026-12-02c.py > docs/results/checks_2026-12-02c.txt` (seventh session), and
`python docs/results/checks_2026-12-02c.py validation/h200/validation_2026-12-02d/v3_exact.jsonl >
docs/results/checks_2026-12-02g.txt` (eighth: the tensor-map wait and the CTA prologue), and with
`validation/h200/validation_2026-12-02e/v3_exact.jsonl` > `docs/results/checks_2026-12-02j.txt` (ninth: no smem
staging in the registers epilogue), and with `validation/h200/validation_2026-12-02h/v3_exact.jsonl` >
`docs/results/checks_2026-12-02v.txt` (eleventh: the HBM's loaded latency), and with
`validation/h200/validation_2026-12-02z/v3_exact.jsonl` > `docs/results/checks_2026-12-02z.txt` (twelfth: the row-max
pass as two ops, O's rescale after S's first wgmma)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

DEFAULT = "validation/h200/validation_2026-12-02c/v3_exact.jsonl"
PATH = sys.argv[1] if len(sys.argv) > 1 else DEFAULT
LINES = Path(PATH).read_text().splitlines()
rows = [json.loads(line) for line in LINES]


def switch(row: dict[str, object], name: str) -> bool:
    return f"{name}=True" in str(row["options"])


def gain(name: str, other: str, other_on: bool) -> None:
    by = {}
    for row in rows:
        if switch(row, other) == other_on:
            by[(row["seqlen"], row["headdim"], row["causal"], switch(row, name))] = row
    for source in ("measured_ms", "predicted_ms"):
        for d in (64, 128, None):
            gains = [
                by[(*key[:3], False)][source] / on[source] - 1
                for key, on in by.items()
                if key[3] and (d is None or key[1] == d)
            ]
            label = "all" if d is None else f"d={d}"
            print(f"{name} gain ({other}={other_on}), {source[:-3]}, {label}: {100 * sum(gains) / len(gains):+.1f}%")


for d in (64, 128):
    for pingpong in (True, False):
        for overlap in (True, False):
            errors = [r["rel_error"] for r in rows if r["headdim"] == d and switch(r, "pingpong") == pingpong
                      and switch(r, "intra_wg_overlap") == overlap]  # fmt: skip
            print(f"d={d} pingpong={pingpong} overlap={overlap}: mean error {100 * sum(errors) / len(errors):+.1f}%, "
                  f"MAPE {100 * sum(map(abs, errors)) / len(errors):.1f}% over {len(errors)}")  # fmt: skip

for d in (64, 128):
    for n in sorted({r["seqlen"] for r in rows}):
        errors = [r["rel_error"] for r in rows if r["headdim"] == d and r["seqlen"] == n]
        print(f"d={d} seqlen={n}: mean error {100 * sum(errors) / len(errors):+.1f}% over {len(errors)}")

if PATH == DEFAULT:  # the same sweep timed twice (device calls 3 and 4): how far the two measurements lie apart
    REPEAT = Path("validation/h200/validation_2026-12-02c/v3_exact_call3.jsonl").read_text().splitlines()
    first = {(r["seqlen"], r["headdim"], r["causal"], r["options"]): r["measured_ms"] for r in map(json.loads, REPEAT)}
    spread = [abs(r["measured_ms"] / first[(r["seqlen"], r["headdim"], r["causal"], r["options"])] - 1) for r in rows]
    print(f"two timing runs: max |difference| {100 * max(spread):.2f}%, mean {100 * sum(spread) / len(spread):.2f}%")

gain("pingpong", "intra_wg_overlap", True)
gain("pingpong", "intra_wg_overlap", False)
gain("intra_wg_overlap", "pingpong", True)
gain("intra_wg_overlap", "pingpong", False)
