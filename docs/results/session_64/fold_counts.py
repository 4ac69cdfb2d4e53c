"""Folds and tile copies in one fast-mode prediction of the B200's standard attention forward at 16k tokens (the
speed benchmark's problem), counted as Python (`SIMGPU_NATIVE=0`: it wraps `_Folder.fold` and `TileGroup.copy`).
Run from a checkout: `SIMGPU_NATIVE=0 PYTHONPATH=DIR python docs/results/session_64/fold_counts.py`."""

from __future__ import annotations

import collections

import simgpu.fast_bytes as fast_bytes
import simgpu.tile_copies as tile_copies
from simgpu import Problem, load_arch, simulate

COUNTS: collections.Counter[str] = collections.Counter()
_FOLD = fast_bytes._Folder.fold
_COPY = tile_copies.TileGroup.copy


def _fold(self: fast_bytes._Folder, n: int) -> object:
    COUNTS["folds"] += 1
    return _FOLD(self, n)


def _copy(self: tile_copies.TileGroup, source: object) -> object:
    made = _COPY(self, source)  # type: ignore[arg-type]
    COUNTS["copies" if made is not None else "no copy"] += 1
    return made


def main() -> None:
    fast_bytes._Folder.fold = _fold  # type: ignore[method-assign]
    tile_copies.TileGroup.copy = _copy  # type: ignore[method-assign,assignment]
    chip, problem = load_arch("b200"), Problem(1, 16, 16384, 128)
    simulate(chip, "standard", problem, mode="fast")
    COUNTS.clear()
    simulate(chip, "standard", problem, mode="fast")
    print(dict(COUNTS))


if __name__ == "__main__":
    main()
