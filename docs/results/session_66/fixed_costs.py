"""Period per key tile and fixed cost per CTA, fitted as `docs/results/checks_2026-12-02y.py` fits the chip's (a line
over N = 512 .. 16384 of a wave's cycles), from the measured times and from a validation CSV's predictions at the
measured clock: `python docs/results/session_66/fixed_costs.py CSV` (default: the candidate's exact-mode validation,
`candidate/v3_exact.csv`)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).parent
_SPEC = importlib.util.spec_from_file_location("periods", HERE.parent / "checks_2026-12-02y.py")
assert _SPEC is not None and _SPEC.loader is not None
periods = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(periods)


def main(path: str) -> None:
    chip = periods.measured()
    periods.VALIDATION = Path(path)
    model = periods.measured("predicted_ms")
    for variant in sorted(chip):
        d, pingpong, overlap = variant
        (cp, cf), (mp, mf) = chip[variant], model[variant]
        build = f"d={d:3} pingpong={pingpong!s:5} intra_wg_overlap={overlap!s:5}"
        print(f"{build}: period chip {cp:5.0f} model {mp:5.0f}; fixed per CTA chip {cf:6.0f} model {mf:6.0f}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else str(HERE / "candidate" / "v3_exact.csv"))
