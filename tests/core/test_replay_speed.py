"""The L2 replay's shortcuts of the forty-second session against what they replace: a program's records made in one
pass, a wave cut by index, the dirty write-backs summed without a list, a key's head and a tile's shape told
without slicing, and a shape's position guessed from the tile's."""

from __future__ import annotations

import random
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from itertools import zip_longest

import pytest

import simgpu.fast_bytes
import simgpu.replay
from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.fast_plan import plan_kernel
from simgpu.fold import memory_accesses
from simgpu.lru_lines import Lines
from simgpu.ops import Delay, Load, Repeat, Store
from simgpu.replay import Record, program_records, records
from tests.core.l2_reference import dirtied


def test_program_records_are_the_records_of_its_memory_ops_and_none_with_a_loop() -> None:
    # A load, a delay, a store of the same key (a later access: its kind raised by 3), an atomic, a float size:
    # the records of the memory ops alone, kinds 0 (load), 1 + 3 (the store again), 2 (atomic).
    program = [
        Load("Q", (0, 0, 1), 64),
        Delay(5),
        Store("Q", (0, 0, 1), 64),
        Store("dQ", (0, 0, 2), 32.5, atomic=True),
    ]
    assert program_records(program) == (
        (0, "Q", ("Q", (0, 0, 1)), 64),
        (4, "Q", ("Q", (0, 0, 1)), 64),
        (2, "dQ", ("dQ", (0, 0, 2)), 32.5),
    )
    assert program_records(program) == records(memory_accesses([program]))
    assert program_records([Load("Q", (0,), 8), Repeat(2, lambda i: [Load("K", (i,), 8)])]) is None


def test_program_records_tell_later_accesses_past_the_keys_kept_in_a_list() -> None:
    # Ten distinct keys (the first eight kept in a list, then a set), then the first and the tenth again, each as a
    # new but equal tuple: both are later accesses (kind 0 + 3), the eleventh key a first one.
    program = [Load("K", (0, 0, n), 8) for n in range(10)]
    program += [Load("K", (0, 0, 0), 8), Load("K", (0, 0, 9), 8), Load("K", (0, 0, 10), 8)]
    assert [record[0] for record in program_records(program) or ()] == [0] * 10 + [3, 3, 0]


def _old_handover(
    ending: Sequence[Sequence[Record]], wave: Sequence[Sequence[Record]]
) -> tuple[list[Record], list[Record], list[Sequence[Record]]]:
    """The hand-over as the walk took it before (bodies and tails sliced, bodies zipped)."""
    bodies, tails = _old_trailing(wave, (1, 2))
    rounds = iter(zip_longest(*bodies))
    first_round = next(rounds, ())
    handover: list[Record] = []
    for slot in range(max(len(ending), len(first_round))):
        if slot < len(ending):
            handover.extend(ending[slot])
        if slot < len(first_round) and first_round[slot] is not None:
            handover.append(first_round[slot])
    rest = [record for group in rounds for record in group if record is not None]
    return handover, rest, tails


def _old_wave_parts(wave: Sequence[Sequence[Record]]) -> tuple[list[Record], list[Record], list[Record]]:
    """A re-reading kernel's wave as the walk took it before."""
    bodies, tails = _old_trailing(wave, (1,))
    rounds = iter(zip_longest(*bodies))
    first_round = [record for record in next(rounds, ()) if record is not None]
    rest = [record for group in rounds for record in group if record is not None]
    return first_round, rest, [record for group in zip_longest(*tails) for record in group if record is not None]


def _old_trailing(
    wave: Sequence[Sequence[Record]], kinds: tuple[int, ...]
) -> tuple[list[Sequence[Record]], list[Sequence[Record]]]:
    bodies: list[Sequence[Record]] = []
    tails: list[Sequence[Record]] = []
    for tile in wave:
        cut = len(tile)
        while cut and tile[cut - 1][0] % 3 in kinds:
            cut -= 1
        bodies.append(tile[:cut])
        tails.append(tile[cut:])
    return bodies, tails


def test_a_wave_cut_by_index_walks_as_before() -> None:
    # Two tiles: a load, a store, a load, the store again then an atomic (trailing: both, or none where stores
    # alone trail: the atomic ends the tile); and a store alone (no body). After a wave that ended on one slot's
    # store, the hand-over takes it then the first tile's first load.
    load, store, atomic, again = (
        (0, "A", ("A", 0), 8),
        (1, "B", ("B", 0), 8),
        (2, "C", ("C", 0), 8),
        (4, "B", ("B", 0), 8),
    )
    wave = [(load, store, load, again, atomic), (store,)]
    ending = [(store,)]
    assert simgpu.replay._handover(ending, wave) == ([store, load], [store, load], [(again, atomic), (store,)])
    assert simgpu.replay._wave_parts(wave) == ([load], [store, load, again, atomic], [store])
    # Random waves of every kind of access, first or later, and an empty one (the walk's last).
    rng = random.Random(42)
    kinds = [(kind, f"T{kind}", (f"T{kind}", kind), 8) for kind in range(6)]
    for _ in range(200):
        wave = [tuple(rng.choice(kinds) for _ in range(rng.randrange(6))) for _ in range(rng.randrange(5))]
        ending = [tuple(rng.choice(kinds) for _ in range(rng.randrange(3))) for _ in range(rng.randrange(5))]
        assert simgpu.replay._handover(ending, wave) == _old_handover(ending, wave)
        assert simgpu.replay._wave_parts(wave) == _old_wave_parts(wave)


def test_dirtied_sums_the_write_backs_as_the_l2_models_list_summed() -> None:
    # Three dirty keys of 3, 0.1 and 0.2 bytes past a capacity of 0.25 after key 4 (7 bytes) is dirtied: all three
    # and key 4 itself are cleaned, oldest first, their bytes summed from 0.0 in that order (0.1 + 0.2 is not 0.3).
    sizes: list[tuple[int, int | float]] = [(1, 3), (2, 0.1), (3, 0.2), (4, 7)]
    lines, dirty = OrderedDict(sizes), OrderedDict.fromkeys([1, 2, 3])
    left, cleaned = dirtied(4, lines, dirty, 3.3000000000000003, 0.25)
    linked = Lines()
    for key, nbytes in sizes:
        linked.add(key, nbytes)
    for key in (1, 2, 3):
        linked.mark_dirty(linked.by_key[key])
    assert simgpu.replay._dirtied(linked.by_key[4], linked, 3.3000000000000003, 0.25) == (left, sum(cleaned, 0.0))
    assert [line.key for line in linked.dirty_lines()] == list(dirty) == []
    assert [line.key for line in linked.lru_lines()] == list(lines) == [1, 2, 3, 4]
    assert sum(cleaned, 0.0) == ((0.0 + 3) + 0.1) + 0.2 + 7


def test_a_keys_head_and_a_tiles_shape_told_as_slices_tell_them() -> None:
    cases: list[tuple[tuple[object, ...], tuple[object, ...]]] = [
        ((0, 1, 5), (0, 1)),
        ((0, 2, 5), (0, 1)),
        ((0,), (0, 1)),
        ((0,), (0,)),
        ((), ()),
        ((0.0, 1), (0, 1)),  # equal, not identical
    ]
    for key, head in cases:
        assert simgpu.replay._begins_with(key, 2, head) == (key[:2] == head)
    tiles: list[tuple[object, ...]] = [(0, 0, 3, 4), (1, 0, 3, 4), (0, 0, 3, 5), (0, 0, 3), (2, 7, 3, 4.0)]
    for first in tiles:
        for second in tiles:
            assert simgpu.fast_bytes._same_shape(first, second, 2) == (first[2:] == second[2:])


@pytest.mark.parametrize(("algo", "pass_"), [("standard", "fwd"), ("v2", "bwd"), ("v1", "fwd")])
def test_head_copies_of_tiles_out_of_order_are_those_in_order(algo: str, pass_: str) -> None:
    # The shape of a tile is guessed from its position and checked: tiles shuffled (every guess checked, most
    # wrong) fold to the same records as in launch order.
    arch = load_arch("h100", {"sms": 8})
    for kernel in schedule(arch, algo, Problem(1, 3, 512, 64, pass_=pass_), {}):
        plan = plan_kernel(arch, kernel)
        tiles: list[Hashable] = list(kernel.tiles)
        in_order = simgpu.fast_bytes._head_copies(plan, tiles)
        order = list(range(len(tiles)))
        random.Random(7).shuffle(order)
        shuffled = simgpu.fast_bytes._head_copies(plan, [tiles[n] for n in order])
        assert [shuffled[k].records for k in range(len(order))] == [in_order[n].records for n in order]
