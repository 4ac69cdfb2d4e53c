"""Kernel descriptions: lazy tile grids index like the nested loops they replace."""

from __future__ import annotations

import pytest

from simgpu.kernel import TileGrid


def test_tile_grid_is_the_row_major_product_without_materializing_it() -> None:
    grid = TileGrid((2, 3, 4))
    assert len(grid) == 24
    assert list(grid) == [(a, b, c) for a in range(2) for b in range(3) for c in range(4)]
    assert grid[-1] == (1, 2, 3)
    assert grid[:2] == ((0, 0, 0), (0, 0, 1))
    with pytest.raises(IndexError):
        grid[24]
    huge = TileGrid((64, 64, 1_000_000))
    assert huge[123_456_789] == (1, 59, 456_789)


@pytest.mark.parametrize("shape", [(2, 3, 4), (5,), (3, 0, 2), (1, 1, 7)])
def test_tile_grid_iterates_its_tiles_as_it_indexes_them(shape: tuple[int, ...]) -> None:
    grid = TileGrid(shape)
    assert list(iter(grid)) == [grid[n] for n in range(len(grid))]
