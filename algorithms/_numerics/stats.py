"""Counts returned with `return_stats=True`: exps, rescales, blocks and HBM bytes of one call.

`NumericsStats` is the frozen result. `Tally` is the counter a loop adds to while it runs (the loops are
written as plain Python loops over tiles, so counting there keeps each byte formula next to the code that
causes it); `Tally.freeze()` turns it into the result. Bytes count traffic between HBM and on-chip memory
only; L2 hits, register spills and the tails of partial tiles beyond the array ends are ignored (partial
tiles count their real rows and columns).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

__all__ = ["NumericsStats", "Tally"]


@dataclass(frozen=True)
class NumericsStats:
    """What one forward or backward call did, summed over batch and heads."""

    exp_software: int = 0
    exp_hardware: int = 0
    rescales_performed: int = 0
    rescales_skipped: int = 0
    blocks_total: int = 0
    blocks_skipped_causal: int = 0
    hbm_read_bytes: int = 0
    hbm_write_bytes: int = 0


@dataclass
class Tally:
    """Mutable running sums with the fields of `NumericsStats`; only `add` and `freeze` are used."""

    exp_software: int = 0
    exp_hardware: int = 0
    rescales_performed: int = 0
    rescales_skipped: int = 0
    blocks_total: int = 0
    blocks_skipped_causal: int = 0
    hbm_read_bytes: int = 0
    hbm_write_bytes: int = 0

    def add(self, **counts: int) -> None:
        for name, value in counts.items():
            setattr(self, name, getattr(self, name) + int(value))

    def freeze(self, copies: int = 1) -> NumericsStats:
        """The counts times `copies` (a tally kept for one of several identical problems)."""
        return NumericsStats(**{f.name: copies * getattr(self, f.name) for f in fields(self)})
