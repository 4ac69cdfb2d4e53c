"""Side check of the eighth session, as `checks_2026-12-02c.py` on the validation with the tensor-map wait and the CTA
prologue (`validation/h200/validation_2026-12-02d/v3_exact.jsonl`): v3's error by variant and by sequence length,
and the ping-pong and intra-warpgroup-overlap gains, measured on our kernel and predicted (exact mode): the mean over
the sweep's (seqlen, headdim, causal) of time(mechanism off) / time(on) - 1.
Run from the repository root: `python docs/results/checks_2026-12-02g.py > docs/results/checks_2026-12-02g.txt`."""

from __future__ import annotations

import json
from pathlib import Path

LINES = Path("validation/h200/validation_2026-12-02d/v3_exact.jsonl").read_text().splitlines()
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

gain("pingpong", "intra_wg_overlap", True)
gain("pingpong", "intra_wg_overlap", False)
gain("intra_wg_overlap", "pingpong", True)
gain("intra_wg_overlap", "pingpong", False)
