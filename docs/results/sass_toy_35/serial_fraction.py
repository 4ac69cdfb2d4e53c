"""The model's side of the softmax probes (`docs/results/checks_2026-12-02m.py`) with the arch's
`sm.single_warp_serial_fraction` set to none (a role of one warp per scheduler no longer pays 0.54 of its other
pipes' spans beyond its longest): which of the model's misses on one softmax that rule makes. Its value, 0.54, was
measured on the calibration's softmax role (`archs/h100.yaml`), whose loop the toy also gets (issue_toy.txt). Run from
the repository root: `python docs/results/sass_toy_35/serial_fraction.py > .../serial_fraction.txt`.
"""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

import simgpu.arch

CHECKS = Path(__file__).resolve().parents[1] / "checks_2026-12-02m.py"
load_arch = simgpu.arch.load_arch


def without_serial_fraction(name: Any, overrides: Any = None) -> Any:
    return load_arch(name, {**(overrides or {}), "sm.single_warp_serial_fraction": None})


simgpu.arch.load_arch = without_serial_fraction  # the checks script imports it by name when it runs
runpy.run_path(str(CHECKS), run_name="__main__")
