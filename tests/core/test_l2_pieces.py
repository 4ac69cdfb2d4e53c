"""L2 residency of a `Piece`: bytes a kernel reads with a grid of its own, part of tiles another kernel wrote.

Stories on the L2 unit model, and the fast mode's replay (its inlined L2) moving the same bytes with pieces."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simgpu import load_arch
from simgpu.errors import ScheduleError
from simgpu.ops import Load, Piece, Store
from simgpu.replay import KernelAccesses, records, replay
from simgpu.units.hbm import Hbm
from simgpu.units.l2 import L2
from tests.core.test_fast_speed import reference_replay

KB = 1024


def l2_of(capacity_bytes: int) -> tuple[L2, Hbm]:
    hbm = Hbm(1.0, 0.0)
    return L2(capacity_bytes, 1.0, 0.0, hbm), hbm


def test_a_piece_of_resident_tiles_hits_and_keeps_them_in_use() -> None:
    l2, hbm = l2_of(3 * KB)
    for j in range(3):
        l2.store(0.0, ("S", j), KB)
    row = Piece("row0", (0, 1))  # part of tiles 0 and 1
    assert l2.load(0.0, ("S", row), KB // 4).hit
    assert hbm.read_bytes == 0
    l2.store(0.0, ("S", 3), KB)  # evicts the least recently used tile: 2, not the two the piece touched
    assert ("S", 2) not in l2.lines and {("S", 0), ("S", 1)} <= set(l2.lines)


def test_a_piece_of_an_evicted_tile_misses_then_hits_under_its_own_name() -> None:
    l2, hbm = l2_of(2 * KB)
    for j in range(3):  # tile 0 leaves L2
        l2.store(0.0, ("S", j), KB)
    row = Piece("row0", (0, 1))
    assert not l2.load(0.0, ("S", row), KB // 2).hit
    assert hbm.read_bytes == KB // 2
    assert l2.load(0.0, ("S", row), KB // 2).hit  # the second pass over the row
    assert hbm.read_bytes == KB // 2


def test_a_piece_of_no_tile_is_a_schedule_error() -> None:
    with pytest.raises(ScheduleError, match="part of no tile"):
        Piece("row0", ())


def test_a_piece_does_not_hit_on_tiles_of_another_tensor() -> None:
    l2, _ = l2_of(4 * KB)
    l2.store(0.0, ("P", 0), KB)
    assert not l2.load(0.0, ("S", Piece("row0", (0,))), KB // 2).hit


_TILE = st.tuples(
    st.sampled_from(["load", "store"]), st.sampled_from("SP"), st.integers(0, 4), st.sampled_from([KB, 3 * KB])
)
# A piece is smaller than any tile it is part of (here a quarter of the smallest).
_PIECE = st.tuples(
    st.just("load"),
    st.sampled_from("SP"),
    st.builds(
        lambda name, wholes: Piece(name, tuple(wholes)), st.integers(10, 12), st.lists(st.integers(0, 4), min_size=1)
    ),
    st.just(KB // 4),
)
_ACCESS = st.one_of(_TILE, _PIECE)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    kernels=st.lists(st.lists(st.lists(_ACCESS, max_size=6), min_size=1, max_size=4), min_size=1, max_size=3),
    capacity=st.sampled_from([0, 2 * KB, 7 * KB, 10**9]),
    slots=st.integers(1, 3),
)
def test_replay_moves_the_bytes_the_l2_model_moves_with_pieces(
    kernels: list[list[list[tuple[str, str, object, int]]]], capacity: int, slots: int
) -> None:
    def op(kind: str, tensor: str, key: object, nbytes: int) -> Load | Store:
        if kind == "load":
            return Load(tensor, key, nbytes)  # type: ignore[arg-type]
        return Store(tensor, key, nbytes)  # type: ignore[arg-type]

    accesses = [KernelAccesses([records([op(*a) for a in tile]) for tile in tiles], slots) for tiles in kernels]
    arch = load_arch("h100")
    expected, _, evicted = reference_replay(
        capacity, accesses, None, arch.l2.max_dirty_fraction, arch.hbm.write_cost_ratio
    )
    result = replay(arch, accesses, capacity_bytes=capacity)
    assert result.vector() == expected
    assert result.evicted == evicted


def test_replay_hits_a_piece_of_tiles_the_previous_kernel_wrote() -> None:
    write = KernelAccesses([records([Store("S", 0, KB)]), records([Store("S", 1, KB)])], slots=2)
    read = KernelAccesses([records([Load("S", Piece("row0", (0, 1)), KB // 4)] * 2)], slots=1)
    result = replay(load_arch("h100"), [write, read], capacity_bytes=4 * KB)
    assert (result.hbm_read_bytes, result.l2_read_bytes) == (0.0, KB // 2)
    evicted = replay(load_arch("h100"), [write, read], capacity_bytes=KB)  # tile 0 left: a miss, then a hit
    assert evicted.hbm_read_bytes == KB // 4


def test_a_store_past_the_dirty_capacity_writes_the_oldest_dirty_tile_back_and_keeps_it_resident() -> None:
    # 4 KB of L2, at most 2 KB dirty (as the H200 keeps 28 of its 63 MB dirty: validation/h200/l2_writeback/).
    hbm = Hbm(1.0, 0.0)
    l2 = L2(4 * KB, 1e12, 0.0, hbm, dirty_capacity_bytes=2 * KB)  # L2 serves at once, HBM at 1 byte per cycle
    assert l2.store(0.0, ("S", 0), KB) < 1 and l2.store(0.0, ("S", 1), KB) < 1
    assert hbm.write_bytes == 0
    # The third dirty tile writes the first back: the store is done when HBM has taken it.
    assert l2.store(0.0, ("S", 2), KB) == KB
    assert (hbm.write_bytes, l2.dirty_bytes, list(l2.dirty)) == (KB, 2 * KB, [("S", 1), ("S", 2)])
    assert l2.load(0.0, ("S", 0), KB).hit  # written back, still resident and now clean
    # Storing to a dirty tile again makes it the newest dirty one: the next write-back takes tile 2.
    l2.store(0.0, ("S", 1), KB)
    l2.atomic(0.0, ("S", 3), KB)
    assert list(l2.dirty) == [("S", 1), ("S", 3)] and hbm.write_bytes == 2 * KB
    l2.flush()  # the dirty tiles at the end, untimed
    assert (hbm.write_bytes, l2.dirty_bytes) == (4 * KB, 0.0)
