"""The L2 replay's shortcuts of the forty-third session against what they replace: a size taken as a float unboxed
(`_as_float`), compared with the capacity as a float, the miss sums and the L2 bytes summed in native floats (the
same sums, in the same order), and a wave's tiles taken as tuples."""

from __future__ import annotations

import math
import random
from collections import defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simgpu.replay
from simgpu import load_arch
from simgpu.ops import Load, Store
from simgpu.replay import KernelAccesses, Record, records, replay
from tests.core.test_fast_speed import reference_replay

_SIZES = [0, 1, 255, 257, 4096, 2**40 + 1, 2**53 + 1, 2**62 + 3, 2**70, 0.0, -0.0, 0.5, 1.5, 4096.0, 1e300]


@pytest.mark.parametrize("nbytes", _SIZES)
def test_as_float_is_float(nbytes: int | float) -> None:
    # The same float as `float()`, bit for bit (the sign of a zero too), for small, large and huge ints.
    made = simgpu.replay._as_float(nbytes)
    assert type(made) is float
    assert made == float(nbytes) and math.copysign(1.0, made) == math.copysign(1.0, float(nbytes))


def _old_l2_bytes(number: int, tiles: list[tuple[Record, ...]]) -> dict[tuple[int, str, int], float]:
    """`_add_l2_bytes` as it summed before: boxed sums per kind in a dict by tensor, from `0.0 + size`."""
    by_kind: list[dict[str, float]] = [{} for _ in range(6)]
    first_seen: list[tuple[int, str]] = []
    for tile in tiles:
        for kind, tensor, _, nbytes in tile:
            sums = by_kind[kind]
            if tensor in sums:
                sums[tensor] = sums[tensor] + nbytes
            else:
                sums[tensor] = 0.0 + nbytes
                first_seen.append((kind, tensor))
    out: dict[tuple[int, str, int], float] = defaultdict(float)
    for kind, tensor in first_seen:
        out[number, tensor, kind] += by_kind[kind][tensor]
    return out


def test_l2_bytes_are_the_boxed_sums() -> None:
    # Random tiles of int, fractional and negative-zero sizes: the same sums, bit for bit, in the same key order.
    rng = random.Random(43)
    sizes = [1, 3, 4096, 2**53 + 1, 0.1, 1 / 3, -0.0, 0.0, 1e16]
    for _ in range(50):
        tiles = []
        for _ in range(rng.randrange(1, 5)):
            ops: list[Load | Store] = []
            for _ in range(rng.randrange(8)):
                tensor, key, nbytes = rng.choice("QKV"), rng.randrange(4), rng.choice(sizes)
                kind = rng.randrange(3)
                ops.append(Load(tensor, key, nbytes) if kind == 0 else Store(tensor, key, nbytes, atomic=kind == 2))
            tiles.append(records(ops))
        made: defaultdict[tuple[int, str, int], float] = defaultdict(float)
        simgpu.replay._add_l2_bytes(made, 2, KernelAccesses(tiles, 1))
        expected = _old_l2_bytes(2, tiles)
        assert list(made) == list(expected)
        for key, total in made.items():
            assert total == expected[key] and math.copysign(1.0, total) == math.copysign(1.0, expected[key])


def test_missed_bytes_are_found_again_and_kept_in_first_order() -> None:
    missed = simgpu.replay._MissedBytes()
    first = missed.of(1, "K")
    first.read += 2.5
    assert missed.of(4, "Q") is not first and missed.of(1, "K") is first
    missed.of(1, "Q").written += 1.0
    assert list(missed.order) == [(1, "K"), (4, "Q"), (1, "Q")]
    assert (missed.order[1, "K"].read, missed.order[1, "Q"].written, missed.order[4, "Q"].read) == (2.5, 1.0, 0.0)


def test_a_wave_is_taken_as_its_tuples() -> None:
    record: Record = (0, "K", ("K", 0), 8)
    tile = (record, record)
    wave = simgpu.replay._tuples([tile, [record], []])
    assert wave[0] is tile and wave[1:] == [(record,), ()]


_ACCESS = st.tuples(st.sampled_from(["load", "store", "atomic"]), st.sampled_from("KVO"), st.integers(0, 5))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    kernels=st.lists(st.lists(st.lists(_ACCESS, max_size=6), min_size=1, max_size=5), min_size=1, max_size=3),
    sizes=st.lists(st.sampled_from([1024.0, 2048, 2048.5, 3072.25, 7168]), min_size=6, max_size=6),
    capacity=st.sampled_from([0, 2048, 7168, 10**9]),
    slots=st.integers(1, 3),
    carry=st.sampled_from([None, 0.0, 4096.0]),
)
def test_float_and_boundary_sizes_move_the_bytes_the_l2_model_moves(
    kernels: list[list[list[tuple[str, str, int]]]],
    sizes: list[int | float],
    capacity: int,
    slots: int,
    carry: float | None,
) -> None:
    # Sizes that are floats, fractional, and equal to the capacity (which a line fits: a size past it bypasses L2):
    # the replay's sizes compared and summed as floats move the bytes of the L2 model, which compares them boxed.
    def op(kind: str, tensor: str, key: int) -> Load | Store:
        nbytes = sizes[key]
        if kind == "load":
            return Load(tensor, key, nbytes)
        return Store(tensor, key, nbytes, atomic=kind == "atomic")

    accesses = [KernelAccesses([records([op(*a) for a in tile]) for tile in tiles], slots) for tiles in kernels]
    arch = load_arch("h100").with_overrides({"l2.max_dirty_fraction": 1.0})
    expected, _, evicted = reference_replay(capacity, accesses, carry, 1.0, arch.hbm.write_cost_ratio)
    result = replay(arch, accesses, capacity_bytes=capacity, carry_bytes=carry)
    assert result.vector() == expected
    assert result.evicted == evicted
