"""An op's L2 key (`simgpu.ops.TileKey`, `Load.key`, `Store.key`) stands for the tuple `(tensor, tile)`: equal to it
both ways, hashed as it, found by it in a dictionary and finding it there, so that the L2 holds the same lines
whichever the access named."""

from __future__ import annotations

import pickle

from simgpu.ops import Load, Piece, Store, TileKey
from simgpu.units.fluid_l2 import FluidL2, MissShares
from simgpu.units.hbm import Hbm
from simgpu.units.l2 import L2

KB = 1024


def test_a_key_is_its_tuple_in_equality_hash_and_dictionaries() -> None:
    key, pair = TileKey("Q", (0, 1, 2)), ("Q", (0, 1, 2))
    assert key == pair and pair == key
    assert (key != pair, pair != key) == (False, False)
    assert key == TileKey("Q", (0, 1, 2)) and key != TileKey("Q", (0, 1, 3)) and key != ("K", (0, 1, 2))
    assert key != "Q" and key != ("Q", (0, 1, 2), 0)
    assert hash(key) == hash(pair)
    assert {key: 1}[pair] == 1 and {pair: 2}[key] == 2 and len({key, pair, TileKey("Q", (0, 1, 2))}) == 1
    assert repr(key) == repr(pair)
    assert pickle.loads(pickle.dumps(key)) == key


def test_copies_carry_their_key_built_once() -> None:
    load, store = Load("Q", (0, 1), 64), Store("Q", (0, 1), 64)
    assert load.key == ("Q", (0, 1)) and store.key == ("Q", (0, 1))
    assert load.key is load.key and load.with_nbytes(32).key == load.key
    assert pickle.loads(pickle.dumps(load)).key == load.key
    assert load == Load("Q", (0, 1), 64) and hash(load) == hash(Load("Q", (0, 1), 64))


def test_the_l2_holds_one_line_whichever_form_named_it() -> None:
    l2 = L2(4 * KB, 1.0, 0.0, Hbm(1.0, 0.0))
    l2.store(0.0, Store("S", 0, KB).key, KB)
    assert l2.load(0.0, ("S", 0), KB).hit
    l2.store(0.0, ("S", 1), KB)
    assert l2.load(0.0, Load("S", 1, KB).key, KB).hit
    assert l2.lines == {("S", 0): KB, ("S", 1): KB}
    assert l2.load(0.0, Load("S", Piece("row", (0, 1)), KB // 2).key, KB // 2).hit  # its wholes are resident


def test_the_fluid_l2_reads_a_keys_tensor_and_tile() -> None:
    def hit(key: object) -> bool:
        fluid = FluidL2(1.0, 5.0, Hbm(1.0, 0.0), {"S": MissShares()})  # "S" never misses, other tensors always
        return fluid.load(0.0, key, KB).hit  # type: ignore[arg-type]

    assert hit(TileKey("S", 0)) and hit(("S", 0)) and hit(Load("S", 0, KB).key)
    assert not hit(TileKey("T", 0))
