"""Pieces shared by the attention schedules: tiling arithmetic, causal block ranges, option checks."""
