"""Side check of the seventh session: v3's ping-pong and intra-warpgroup-overlap gains, measured on our kernel and
predicted (exact mode), from the committed validation (`validation/h200/validation_2026-12-02c/v3_exact.jsonl`):
the mean over the sweep's (seqlen, headdim, causal) of time(mechanism off) / time(on) - 1.
Run from the repository root: `python docs/results/checks_2026-12-02c.py > docs/results/checks_2026-12-02c.txt`."""

from __future__ import annotations

import json
from pathlib import Path

LINES = Path("validation/h200/validation_2026-12-02c/v3_exact.jsonl").read_text().splitlines()
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


gain("pingpong", "intra_wg_overlap", True)
gain("pingpong", "intra_wg_overlap", False)
gain("intra_wg_overlap", "pingpong", True)
gain("intra_wg_overlap", "pingpong", False)
