"""The L2 replay's tiles made from a template (`simgpu.tile_copies`): the records, folds and replays they give are
those of the tiles folded one by one."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.fast_plan import plan_kernel
from simgpu.ops import Piece
from simgpu.tile_copies import TileGroup, learn

NO_COPIES = 10**9  # `GROUP_COPY_TILES` no group reaches: every tile folded


def _load(tensor: str, index: tuple[int, ...], nbytes: int = 1024) -> tuple[int, str, Any, int]:
    return (0, tensor, (tensor, index), nbytes)


def test_a_template_moves_the_keys_that_move_with_the_tile() -> None:
    # Tile (0, 0, t) reads K and V blocks 0 and 1, its own Q block t, and writes O blocks 2t and 2t + 1.
    def tile_records(t: int) -> list[tuple[int, str, Any, int]]:
        return [
            _load("Q", (0, 0, t)),
            _load("K", (0, 0, 0)),
            _load("K", (0, 0, 1)),
            (1, "O", ("O", (0, 0, 2 * t)), 512),
            (1, "O", ("O", (0, 0, 2 * t + 1)), 512),
        ]

    template = learn((0, 0, 3), tile_records(3), (0, 0, 4), tile_records(4))
    assert template is not None
    assert template.step((0, 0, 9)) == 6
    assert list(template.records_for(6)) == tile_records(9)
    assert template.reproduces((0, 0, 40), tile_records(40))
    assert not template.reproduces((0, 0, 40), tile_records(41))
    assert template.step((0, 1, 9)) is None  # another head: not of the group's form


@pytest.mark.parametrize(
    "second",
    [
        [_load("Q", (0, 0, 4)), _load("K", (0, 0, 1))],  # a key of another tensor's than the first tile's
        [_load("Q", (0, 0, 4)), _load("V", (0, 0, 0), 2048)],  # other bytes
        [_load("Q", (0, 0, 4))],  # fewer records
    ],
)
def test_tiles_whose_records_differ_but_in_their_keys_give_no_template(second: list[Any]) -> None:
    assert learn((0, 0, 3), [_load("Q", (0, 0, 3)), _load("V", (0, 0, 0))], (0, 0, 4), second) is None


def test_keys_that_do_not_move_in_whole_steps_give_no_template() -> None:
    first, second = [_load("Q", (0, 0, 1))], [_load("Q", (0, 0, 2))]
    assert learn((0, 0, 0), first, (0, 0, 2), second) is None  # Q moves 1 where the tile moves 2
    assert learn((0, 0, 0), first, (0, 1, 1), second) is None  # the tiles differ in two entries
    # Pieces whose wholes move by half the tiles' step.
    pieces = [(0, "P", ("P", Piece((0, 0, 2 * n), ((0, 0, n),))), 64) for n in (0, 1)]
    assert learn((0, 0, 0), pieces[:1], (0, 0, 2), pieces[1:]) is None


def test_a_template_moves_a_piece_whose_wholes_every_tile_shares() -> None:
    # Tile (0, 0, t) of dV = P^T dO reads its piece (k, t) of P's row group k: the piece's name moves with the tile,
    # its wholes (the row group's score tiles) are one object for every tile.
    wholes = tuple([(0, 0, 0, 0), (0, 0, 0, 1)])

    def tile_records(t: int) -> list[tuple[int, str, Any, int]]:
        return [
            (0, "P", ("P", Piece((0, 0, 0, t), wholes)), 64),
            _load("dO", (0, 0, 0)),
            (1, "dV", ("dV", (0, 0, t)), 32),
        ]

    template = learn((0, 0, 3), tile_records(3), (0, 0, 4), tile_records(4))
    assert template is not None
    copied = template.records_for(6)
    assert list(copied) == tile_records(9)
    assert copied[0][2][1].wholes is wholes  # shared, as the folds share it


def test_a_template_moves_pieces_whose_wholes_move_with_the_tile() -> None:
    # Tile (0, 0, t) of dQ = dS K reads, per k step s, its piece (t, s) of dS, whose wholes are the row groups
    # 2t and 2t + 1 of its own query block: one object for all the tile's pieces, made per tile.
    def tile_records(t: int) -> list[tuple[int, str, Any, int]]:
        own = tuple([(0, 0, 2 * t), (0, 0, 2 * t + 1)])
        return [(0, "dS", ("dS", Piece((0, 0, t, s), own)), 64) for s in (0, 1)] + [_load("K", (0, 0, 0))]

    template = learn((0, 0, 3), tile_records(3), (0, 0, 4), tile_records(4))
    assert template is not None
    copied = template.records_for(6)
    assert list(copied) == tile_records(9)
    assert copied[0][2][1].wholes is copied[1][2][1].wholes  # the tile's pieces share their wholes, as a fold's do


def test_a_template_tells_whether_its_tiles_touch_only_their_own_keys() -> None:
    def rows(t: int) -> list[tuple[int, str, Any, int]]:  # a backward's row kernel: O_t and dO_t in, Delta_t out
        return [_load("O", (0, 0, t)), _load("dO", (0, 0, t)), (1, "Delta", ("Delta", (0, 0, t)), 512)]

    def scores(t: int) -> list[tuple[int, str, Any, int]]:  # a score tile of query block 0: reads Q_0 with K_t
        return [_load("Q", (0, 0, 0)), _load("K", (0, 0, t)), (1, "S", ("S", (0, 0, 0, t)), 512)]

    wholes = tuple([(0, 0, 0, 0)])

    def pieces(t: int) -> list[tuple[int, str, Any, int]]:  # a piece of P's row group, then the tile's own output
        return [(0, "P", ("P", Piece((0, 0, 0, t), wholes)), 64), (1, "dV", ("dV", (0, 0, t)), 32)]

    made = {name: learn((0, 0, 3), of(3), (0, 0, 4), of(4)) for name, of in (("rows", rows), ("scores", scores))}
    made["pieces"] = learn((0, 0, 3), pieces(3), (0, 0, 4), pieces(4))
    assert {name: template is not None and template.own_keys for name, template in made.items()} == {
        "rows": True,
        "scores": False,
        "pieces": False,
    }


@pytest.mark.parametrize(
    ("algo", "copied"),
    [
        ("v2", {"v2_bwd_preprocess", "v2_bwd_convert_dq"}),
        ("v3", {"v3_bwd_preprocess", "v3_bwd_convert_dq"}),
        ("standard", set()),
    ],
)
def test_loop_free_tiles_are_copied_where_each_touches_only_its_own_keys(
    algo: str, copied: set[str], monkeypatch: pytest.MonkeyPatch, fast_bytes_source: ModuleType
) -> None:
    # A backward's row kernels (each tile on its own query block's rows) are made from templates; standard
    # attention's score and softmax tiles (a query block's rows read by a row of tiles, pieces of P) are folded.
    arch = load_arch("h100", {"sms": 4})
    kernels = schedule(arch, algo, Problem(1, 1, 8192, 128, pass_="bwd"), {})
    plans = [plan for plan in (plan_kernel(arch, kernel) for kernel in kernels) if not plan.looped]
    made = {plan.kernel.name: _head_copies(fast_bytes_source, plan, list(plan.kernel.tiles)) for plan in plans}
    monkeypatch.setattr(fast_bytes_source, "GROUP_COPY_TILES", NO_COPIES)
    for plan in plans:
        folded = _head_copies(fast_bytes_source, plan, list(plan.kernel.tiles))
        for copy, fold in zip(made[plan.kernel.name], folded, strict=True):
            assert (copy.records, copy.removed, copy.executed) == (fold.records, fold.removed, fold.executed)
    assert {name for name, tiles in made.items() if any(type(t).__name__ == "TileCopy" for t in tiles)} == copied


def _head_copies(module: ModuleType, plan: Any, tiles: list[Any]) -> list[Any]:
    return module._head_copies(plan, tiles, module._replay_folded(plan))


@pytest.mark.parametrize(
    ("algo", "pass_"),
    [("v2", "fwd"), ("v3", "fwd"), ("v2", "bwd"), ("v3", "bwd"), ("standard", "fwd"), ("standard", "bwd")],
)
def test_a_heads_tiles_made_from_templates_are_its_folds(
    algo: str, pass_: str, monkeypatch: pytest.MonkeyPatch, fast_bytes_source: ModuleType
) -> None:
    # 64 query (or key) blocks of 128 rows in the head: the looped kernel's tiles are copies, and their records and
    # folds are those of the tiles folded one by one.
    arch = load_arch("h100", {"sms": 4})
    kernels = schedule(arch, algo, Problem(1, 1, 8192, 128, pass_=pass_), {})
    plan = next(plan for plan in (plan_kernel(arch, kernel) for kernel in kernels) if plan.looped)
    tiles = list(plan.kernel.tiles)
    copied = _head_copies(fast_bytes_source, plan, tiles)
    monkeypatch.setattr(fast_bytes_source, "GROUP_COPY_TILES", NO_COPIES)
    folded = _head_copies(fast_bytes_source, plan, tiles)
    # The plan's own shapes and the four that learn and check the template are folds.
    assert sum(type(tile).__name__ == "TileCopy" for tile in copied) == len(tiles) - len(plan.folded) - 4
    assert not any(type(tile).__name__ == "TileCopy" for tile in folded)
    for copy, fold in zip(copied, folded, strict=True):
        assert (copy.records, copy.removed, copy.executed) == (fold.records, fold.removed, fold.executed)


@pytest.mark.parametrize(
    ("algo", "pass_"),
    [("v2", "fwd"), ("v3", "fwd"), ("v2", "bwd"), ("v3", "bwd"), ("standard", "fwd"), ("standard", "bwd")],
)
def test_a_replay_of_templated_tiles_is_the_replay_of_folded_ones(
    algo: str, pass_: str, monkeypatch: pytest.MonkeyPatch, fast_bytes_source: ModuleType
) -> None:
    # Two heads of 128 blocks on 4 SMs and a 4 MB L2: a head replays alone (prefixes where they apply).
    arch = load_arch("h100", {"sms": 4, "l2.capacity_bytes": 4_000_000})
    kernels = schedule(arch, algo, Problem(1, 2, 16384, 128, pass_=pass_), {})
    plans = [plan_kernel(arch, kernel) for kernel in kernels]
    shares, copied = fast_bytes_source.replayed_bytes(arch, plans)
    monkeypatch.setattr(fast_bytes_source, "GROUP_COPY_TILES", NO_COPIES)
    folded_shares, folded = fast_bytes_source.replayed_bytes(arch, plans)
    assert np.array_equal(copied, folded)
    assert shares == folded_shares


class _Fold:
    """A tile as `TileGroup` takes it: records and a fold's iteration counts."""

    def __init__(self, *records: tuple[int, str, Any, int]) -> None:
        self.records = tuple(records)
        self.removed = (0,)
        self.executed = (1,)
        self.totals = None


def test_a_group_whose_second_tile_the_template_does_not_give_has_none() -> None:
    # The first tile reads its Q block twice; the second reads two blocks: learnt at the first access, the template
    # would read block t + 1 twice, which the second tile's records refute.
    tiles = [_Fold(_load("Q", (0, 0, t)), _load("Q", (0, 0, t + (t > 3)))) for t in (3, 4, 5, 6)]
    assert TileGroup([(0, 0, t) for t in (3, 4, 5, 6)], tiles).template is None
    alike = [_Fold(_load("Q", (0, 0, t)), _load("Q", (0, 0, t))) for t in (3, 4, 5, 6)]
    group = TileGroup([(0, 0, t) for t in (3, 4, 5, 6)], alike)
    copy = group.copy((0, 0, 9))
    assert group.template is not None and copy is not None
    assert copy.records == (_load("Q", (0, 0, 9)), _load("Q", (0, 0, 9)))
    assert group.copy((0, 1, 9)) is None
