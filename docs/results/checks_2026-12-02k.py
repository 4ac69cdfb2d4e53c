"""Side check of the ninth session: from `docs/results/v3_ablation.csv` (experiments.v3_ablation against the H200's
validation/h200/v3_ablate_h200.csv), what each part of our FA3 forward adds per key tile per SM (the whole kernel's
cycles minus the ablated build's), measured and in the model, per variant. Run from the repository root:
`python docs/results/checks_2026-12-02k.py > docs/results/checks_2026-12-02k.txt`."""

from __future__ import annotations

import csv
from pathlib import Path

with Path("docs/results/v3_ablation.csv").open(encoding="utf-8") as handle:
    ROWS = list(csv.DictReader(handle))
NAMES = {1: "K/V loads", 2: "exp", 4: "P V", 8: "S", 16: "stores", 32: "row max", 64: "rescale", 12: "both GEMMs",
         6: "exp + P V", 34: "exp + row max", 96: "row max + rescale"}  # fmt: skip

for d in ("64", "128"):
    for pp in ("True", "False"):
        for ov in ("True", "False"):
            sel = {int(r["ablate"]): r for r in ROWS
                   if r["headdim"] == d and r["pingpong"] == pp and r["intra_wg_overlap"] == ov}  # fmt: skip
            measured0 = float(sel[0]["measured_cycles_per_tile_per_sm"])
            model0 = float(sel[0]["model_cycles_per_tile_per_sm"])
            print(f"d={d} pingpong={pp} overlap={ov}: whole kernel measured {measured0:.0f}, model {model0:.0f} "
                  f"({model0 / measured0 - 1:+.1%})")  # fmt: skip
            for mask, name in NAMES.items():
                measured = float(sel[mask]["measured_cycles_per_tile_per_sm"])
                model = float(sel[mask]["model_cycles_per_tile_per_sm"])
                print(
                    f"  without {name} ({mask}): adds {measured0 - measured:5.0f} measured, {model0 - model:5.0f} "
                    f"model; ablated build measured {measured:.0f}, model {model:.0f} ({model / measured - 1:+.1%})"
                )
