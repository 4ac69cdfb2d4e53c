"""The v3 consumers' period per key tile against the chip's, by the number of ops the softmax's exp pass is cut into
(`algorithms._schedule.softmax.EXP_PASS_PARTS`), with `exp_pass_parts_candidate.patch` applied: the model's side
of `docs/results/checks_2026-12-02y.py` (one SM of the H200 traced in exact mode, N = 4096, B = 4) for the eight
builds, at each count. Run from a checkout with the patch applied (its native build made):
`PYTHONPATH=CHECKOUT python docs/results/session_66/parts_scan.py > docs/results/session_66/parts_scan.txt`."""

from __future__ import annotations

import importlib.util
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import algorithms._schedule.softmax as softmax

PARTS = (1, 4, 8, 16, 24, 64)
_SPEC = importlib.util.spec_from_file_location("periods", Path(__file__).parents[1] / "checks_2026-12-02y.py")
assert _SPEC is not None and _SPEC.loader is not None
periods = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(periods)


def period_at(args: tuple[int, tuple[int, bool, bool]]) -> float:
    parts, variant = args
    softmax.EXP_PASS_PARTS = parts
    return float(periods.model_period(variant))


def main() -> None:
    if not hasattr(softmax, "EXP_PASS_PARTS"):
        sys.exit("apply exp_pass_parts_candidate.patch first")
    fits = periods.measured()
    variants = sorted(fits)
    with ProcessPoolExecutor(2) as pool:
        for parts in PARTS:
            model = list(pool.map(period_at, [(parts, v) for v in variants]))
            errors = [m / fits[v][0] - 1 for m, v in zip(model, variants, strict=True)]
            print(f"== exp pass in {parts} parts, mean |error| {sum(map(abs, errors)) / len(errors):.1%}")
            for variant, m, e in zip(variants, model, errors, strict=True):
                d, pingpong, overlap = variant
                build = f"d={d:3} pingpong={pingpong!s:5} intra_wg_overlap={overlap!s:5}"
                print(f"  {build}: measured {fits[variant][0]:5.0f} model {m:5.0f} ({e:+.1%})")


if __name__ == "__main__":
    main()
