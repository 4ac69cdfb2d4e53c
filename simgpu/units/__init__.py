"""Unit models: one small module each. Every unit counts its busy cycles and what it served."""
