"""Unit models: one small module each. Every unit counts its busy cycles and what it served."""

UNIT_NAMES: tuple[str, ...] = ("hbm", "l2", "smem", "tmem", "tma", "tensor", "mufu", "fma", "alu", "issue")
