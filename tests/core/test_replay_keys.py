"""The L2 replay's records of the forty-third session: a tile's access to a key it accessed before takes the key
object of its first access (the walk finds it by identity), in the short list of a tile's first keys and in the dict
past it; the records are otherwise those of a key tuple per access."""

from __future__ import annotations

from simgpu.ops import Load, Store
from simgpu.replay import REREAD, records


def test_a_key_accessed_again_is_the_object_of_its_first_access() -> None:
    # Q block 0 read, then 11 K blocks (past the list of a tile's first 8 keys), Q block 0 read again, K block 10
    # stored: the later accesses take the first accesses' key objects, with their kinds raised as before.
    ops = [Load("Q", (0, 0, 0), 64), *[Load("K", (0, 0, block), 64) for block in range(11)]]
    ops += [Load("Q", (0, 0, 0), 64), Store("K", (0, 0, 10), 64), Load("K", (0, 0, 3), 64)]
    made = records(ops)
    assert [record[2] for record in made] == [(op.tensor, op.tile) for op in ops]
    assert made[12][2] is made[0][2] and made[12][0] == REREAD
    assert made[13][2] is made[11][2] and made[14][2] is made[4][2]
    assert len({id(record[2]) for record in made}) == 12  # a key object per key


def test_few_keys_share_their_first_object_too() -> None:
    # Three keys, each accessed twice (the list of a tile's first keys): equal tuples made apart share one object.
    ops = [Load("S", (0, 1), 32), Load("S", (0, 2), 32), Store("P", (0, 1), 16)]
    made = records([*ops, Load("S", (0, 1), 32), Load("S", (0, 2), 32), Store("P", (0, 1), 16)])
    for first, again in zip(made[:3], made[3:], strict=True):
        assert again[2] is first[2] and again[0] - first[0] == REREAD  # (raised as a load's kind: loads are 0)
