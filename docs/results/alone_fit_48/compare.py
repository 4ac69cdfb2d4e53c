"""The SM alone fitted from the busy runs in kernels of 4 waves or more (`simgpu.fast_costs.ALONE_FIT_WAVES`) next to
the code before it (the grids as committed, `../fast_vs_exact.csv`, `../fast_vs_exact_causal.csv`,
`../rounds_47/ops_bound/whole/`; the validation's fast runs at 93c1d95, `../rounds_48/validate_*_base.csv`): the
fast-vs-exact grids as `../rounds_48/compare.py` reads them, and the validation's predictions that moved. Run from the
repository root:
`python docs/results/alone_fit_48/compare.py > docs/results/alone_fit_48/compare.txt`."""

from __future__ import annotations

import csv
import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent
_spec = importlib.util.spec_from_file_location("rounds_48_compare", RESULTS / "rounds_48" / "compare.py")
assert _spec is not None and _spec.loader is not None
rounds_48 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rounds_48)


def moved(base: Path, new: Path) -> str:
    """How many of a validation's predictions moved, and by how much at most."""
    with base.open(newline="") as before, new.open(newline="") as after:
        pairs = list(zip(csv.DictReader(before), csv.DictReader(after), strict=True))
    ratios = [float(b["predicted_ms"]) / float(a["predicted_ms"]) - 1 for a, b in pairs]
    return f"{sum(r != 0 for r in ratios)} of {len(ratios)} moved, at most {max(map(abs, ratios)):.3%}"


def main() -> None:
    rounds_48.grid("grid", RESULTS / "fast_vs_exact.csv", {"alone fit": HERE / "grid.csv"})
    rounds_48.grid("causal", RESULTS / "fast_vs_exact_causal.csv", {"alone fit": HERE / "causal.csv"})
    whole = RESULTS / "rounds_47" / "ops_bound" / "whole" / "fast_vs_exact_whole.csv"
    rounds_48.grid("whole", whole, {"alone fit": HERE / "whole.csv"})
    base = RESULTS / "rounds_48"
    print("validate --fast, v3:", moved(base / "validate_v3_fast_base.csv", HERE / "validate_v3_fast.csv"))
    print("validate --fast, the others:", moved(base / "validate_fast_base.csv", HERE / "validate_fast.csv"))


if __name__ == "__main__":
    main()
