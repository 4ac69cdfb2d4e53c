"""`simgpu validate` of the v3 kernel in fast mode with the exp pass in a given number of parts, in this process
(`-j 1`, so that the count reaches every prediction), with `exp_pass_parts_candidate.patch` applied:
`PYTHONPATH=CHECKOUT python docs/results/session_66/validate_parts.py PARTS OUT_DIR`."""

from __future__ import annotations

import sys

import algorithms._schedule.softmax as softmax
from simgpu.cli import main

softmax.EXP_PASS_PARTS = int(sys.argv[1])
measured = "validation/h200/v3_kernels_h200.csv"
main(["validate", "--measured", measured, "--arch", "h200", "--fast", "-j", "1", "--algos", "v3", "--out", sys.argv[2]])
