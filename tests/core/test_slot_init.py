"""`simgpu.slot_init`: an op built by the slot-storing `__init__` is the op the dataclass's own would build."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from simgpu.errors import ScheduleError
from simgpu.ops import Chain, Load, Piece, Store, Wait
from simgpu.slot_init import slot_init


def test_an_op_keeps_its_defaults_equality_hash_and_frozenness() -> None:
    load = Load("K", (0, 1, 2), 64, engine="cp_async", arrive="kv", address_instructions=6.0)
    assert (load.tensor, load.tile, load.nbytes, load.engine, load.arrive, load.acquire) == (
        "K",
        (0, 1, 2),
        64,
        "cp_async",
        "kv",
        None,
    )
    same = Load("K", (0, 1, 2), 64, "cp_async", "kv", None, 6.0)
    assert load == same and hash(load) == hash(same)
    assert Store("O", 1, 32) == Store("O", 1, 32, engine="ldg", atomic=False, wait=False)
    assert Chain(fma=2.0) == Chain(2.0, 0.0, 0.0, 0.0, 0.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        load.tensor = "Q"  # type: ignore[misc]
    with pytest.raises(TypeError, match="missing"):
        Load("K")  # type: ignore[call-arg]
    assert dataclasses.replace(load, tile=5).tile == 5
    assert pickle.loads(pickle.dumps(Wait("ready"))) == Wait("ready")


def test_post_init_runs_as_the_dataclass_s_own_would() -> None:
    piece = Piece("row", ((0,), (1,)))
    assert hash(piece) == hash(("row", ((0,), (1,))))
    with pytest.raises(ScheduleError, match="part of no tile"):
        Piece("row", ())


def test_a_field_with_a_default_factory_is_refused() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Listed:
        items: list[int] = dataclasses.field(default_factory=list)

    with pytest.raises(TypeError, match="default factory"):
        slot_init(Listed)


def test_a_field_left_out_of_init_gets_its_default() -> None:
    @slot_init
    @dataclasses.dataclass(frozen=True, slots=True)
    class Counted:
        name: str
        count: int = dataclasses.field(default=3, init=False)

    assert Counted("a").count == 3


def test_with_nbytes_and_with_tile_are_replace_for_every_field_of_loads_and_stores() -> None:
    # Every field away from its default, so that a field added to the class and left out of their copy fails here.
    load = Load("K", ("b", 3), 64, engine="cp_async", arrive="kv", acquire=None, address_instructions=6.0, rounds=3)
    store = Store(
        "dQ",
        ("b", 4),
        128,
        engine="tma",
        atomic=True,
        wait=True,
        arrive="out",
        release=True,
        fragment_lane_bytes=4,
        fragment_rows=1,
    )
    semaphore = Load("lock", 0, 4, engine="ldg", acquire=2)
    for op in (load, store, semaphore):
        defaults = {f.name for f in dataclasses.fields(op) if getattr(op, f.name) == f.default}
        assert defaults <= {"acquire", "engine", "arrive", "address_instructions", "rounds"}
        assert op.with_nbytes(384.5) == dataclasses.replace(op, nbytes=384.5)
        assert type(op.with_nbytes(1)) is type(op)
        assert op.with_tile(("b", 5)) == dataclasses.replace(op, tile=("b", 5))
        assert op.with_tile(("b", 5)).key == (op.tensor, ("b", 5))


def test_a_class_s_own_init_is_replaced_only_where_it_takes_its_fields_with_their_defaults() -> None:
    @dataclasses.dataclass(frozen=True, slots=True, init=False)
    class Own:
        name: str
        count: int = 3

        def __init__(self, name: str, count: int = 3) -> None:
            self.name = name  # type: ignore[misc]  # as compiled; as Python the frozen class refuses it
            self.count = count  # type: ignore[misc]

    assert slot_init(Own)("a") == Own("a", 3)

    @dataclasses.dataclass(frozen=True, slots=True, init=False)
    class Drifted:
        name: str
        count: int = 3

        def __init__(self, name: str, count: int = 4) -> None:
            self.name = name  # type: ignore[misc]
            self.count = count  # type: ignore[misc]

    with pytest.raises(TypeError, match=r"Drifted\.__init__ takes"):
        slot_init(Drifted)
