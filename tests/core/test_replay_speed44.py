"""The L2 replay's shortcuts of the forty-fourth session against what they replace: the keys a kernel touched told
lazily (`simgpu.replay._Touched`: the pieces' wholes looked up when first asked, among the keys numbered by the
kernel's end) and a head's own memory told from its replay's distinct keys (`simgpu.fast_bytes._own_memory`)."""

from __future__ import annotations

from typing import Any

import pytest

import simgpu.replay
from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.fast_plan import plan_kernel
from simgpu.ops import HashedKeys, Piece
from simgpu.replay import keys_of_head, memory_of_head


def _eager(
    reached: dict[int, int | float], pieces: list[Any], numbers: dict[Any, int], wholes: dict[int, tuple[int, ...]]
) -> set[int]:
    """The keys touched as the walk told them at the kernel's end: every whole of a piece that has a number."""
    out = set(reached)
    for memory in pieces:
        tensor, piece = memory
        out |= {numbers[tensor, whole] for whole in piece.wholes if (tensor, whole) in numbers}
    return out


def test_touched_keys_asked_late_are_those_of_the_kernels_end() -> None:
    # A kernel reads two pieces of S: the wholes of one were numbered before (one of them, 5, is never accessed by
    # its end), the other's are found whole (`wholes`). Later kernels number the missing whole and find the first
    # piece whole, with that whole among its keys: asked then, the keys are still those of the kernel's end.
    row = HashedKeys([(0, 0), (0, 1), (0, 5)])
    other = HashedKeys([(1, 0), (1, 1)])
    first, second = ("S", Piece((0,), row)), ("S", Piece((1,), other))
    numbers: dict[Any, int] = {("S", (0, 0)): 0, ("S", (0, 1)): 1, ("S", (1, 0)): 2, ("S", (1, 1)): 3}
    numbers[first], numbers[second] = 4, 5
    wholes = {5: (2, 3)}
    reached: dict[int, int | float] = {4: 10, 5: 10}
    expected = _eager(dict(reached), [first, second], numbers, wholes)
    touched = simgpu.replay._Touched(reached, [first, second], numbers, wholes)
    numbers["S", (0, 5)] = 6  # accessed in a later kernel only
    wholes[4] = (0, 1, 6)
    assert {key for key in range(-3, 8) if touched.has(key)} == expected == {0, 1, 2, 3, 4, 5}
    assert touched.has(4) and not touched.has(6)


def test_touched_keys_without_pieces_are_those_reached() -> None:
    touched = simgpu.replay._Touched({3: 1, 7: 2}, [], {}, {})
    assert [key for key in range(10) if touched.has(key)] == [3, 7]


@pytest.mark.parametrize(
    ("algo", "options"),
    [("standard", {}), ("standard", {"framework": "pytorch"}), ("v2", {}), ("v1", {})],
    ids=["standard-pieces", "pytorch-shared-mask", "v2", "v1"],
)
def test_a_heads_distinct_keys_tell_its_own_memory_as_its_records_do(algo: str, options: dict[str, Any]) -> None:
    # Every head of each kernel: its tiles' records checked one by one and their distinct keys checked once agree
    # (PyTorch's mask is one tensor every head reads: a key of no head).
    arch = load_arch("h100", {"sms": 8})
    answers = set()
    for kernel in schedule(arch, algo, Problem(2, 2, 384, 64, causal=True, pass_="fwd"), options):
        plan = plan_kernel(arch, kernel)
        axes = kernel.head_axes
        shapes = [shape.records for shape in plan.folded.values()]
        keys = {record[2]: None for tile in shapes for record in tile}
        for head in {tuple(tile[:axes]) for tile in kernel.tiles}:  # type: ignore[index]
            checked: dict[int, bool] = {}
            by_records = all(keys_of_head(tile, axes, head, checked) for tile in shapes)
            assert memory_of_head(keys, axes, head) == by_records
            answers.add(by_records)
    assert answers == {True, False}
