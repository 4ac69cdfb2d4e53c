"""Tiling of the sequence dimensions and the bottom-right-aligned causal mask at tile granularity.

A tile is the half-open range of rows `[start, stop)` of one operand; the last tile of a dimension may be
short. Query row `i` sees key column `j` iff `j <= i + (seqlen_k - seqlen_q)` (FlashAttention 2+
convention).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Tile", "causal_tile_mask", "tile_fully_masked", "tile_needs_mask", "tiles"]


@dataclass(frozen=True)
class Tile:
    """Rows `[start, stop)` of a sequence dimension."""

    index: int
    start: int
    stop: int

    @property
    def size(self) -> int:
        return self.stop - self.start


def tiles(length: int, block: int) -> list[Tile]:
    """Split `range(length)` into tiles of `block` rows, the last one possibly shorter."""
    return [Tile(n, s, min(s + block, length)) for n, s in enumerate(range(0, length, block))]


def tile_fully_masked(rows: Tile, cols: Tile, seqlen_q: int, seqlen_k: int) -> bool:
    """True when no query of `rows` sees any key of `cols` under the causal mask (the tile can be skipped)."""
    return cols.start > rows.stop - 1 + (seqlen_k - seqlen_q)


def tile_needs_mask(rows: Tile, cols: Tile, seqlen_q: int, seqlen_k: int) -> bool:
    """True when the causal mask hides some but not all of the tile (the diagonal tiles)."""
    return cols.stop - 1 > rows.start + (seqlen_k - seqlen_q) and not tile_fully_masked(rows, cols, seqlen_q, seqlen_k)


def causal_tile_mask(rows: Tile, cols: Tile, seqlen_q: int, seqlen_k: int) -> np.ndarray:
    """Boolean `(rows.size, cols.size)`: True where the query sees the key."""
    r = np.arange(rows.start, rows.stop)[:, None]  # (r, 1)
    c = np.arange(cols.start, cols.stop)[None, :]  # (1, c)
    return c <= r + (seqlen_k - seqlen_q)  # (r, c)
