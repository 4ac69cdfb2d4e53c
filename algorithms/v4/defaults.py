"""Defaults that v4's schedule and numerics share, here so that the schedule need not import the numerics (which
import ml_dtypes: about 0.55 CPU seconds)."""

DEFAULT_EXP_EMULATION_FRACTION = 0.25  # for 16- and 8-bit inputs: 8 of every 32 columns
DEFAULT_BLOCK_M = 128  # the numerics' Q tile rows
DEFAULT_RESCALE_GROUP_ROWS = 32  # rows that rescale together: a warp rescales if any of its threads needs to
