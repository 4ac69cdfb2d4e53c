"""The L2 replay's shortcuts of the forty-first session against what they replace: the head copies that share one
record per template entry and head against copies made apart."""

from __future__ import annotations

from typing import Any

import pytest

import simgpu.fast_bytes
from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.fast_plan import plan_kernel
from simgpu.ops import Load, Store
from simgpu.replay import EntryTable, HeadCopies, head_template, records, reheaded


def test_numbered_entries_share_a_record_per_head_and_equal_the_copies_made_apart() -> None:
    # Two tiles of head (0, 1) reading the same Q block, the second its K twice, one size a float: copied to head
    # (3, 0) with one table and one `HeadCopies`, the Q load's record is one object, K's key too; every record
    # equals the copy made apart, int and float sizes kept apart (64 == 64.0) and float zeros never shared (0.0 ==
    # -0.0).
    first = records([Load("Q", (0, 1, 0), 64), Load("K", (0, 1, 5), 64), Store("O", (0, 1, 5), 0.0)])
    second = records([Load("Q", (0, 1, 0), 64), Load("K", (0, 1, 6), 64.0), Load("K", (0, 1, 6), 64.0)])
    third = records([Store("O", (0, 1, 5), -0.0), Load("K", (0, 1, 6), 64)])
    table = EntryTable()
    made = HeadCopies(table)
    copies = []
    for tile_records in (first, second, third):
        template = head_template(tile_records, 2, (0, 1))
        assert template is not None
        copy = reheaded(template, (3, 0), made, table.numbered(template))
        assert copy == reheaded(template, (3, 0))
        assert [type(record[3]) for record in copy] == [type(record[3]) for record in tile_records]
        copies.append(copy)
    assert copies[0][0] is copies[1][0]  # the Q block
    assert copies[1][1] is not copies[1][2]  # first and later access: kinds differ, one key
    assert copies[1][1][2] is copies[1][2][2] is copies[2][1][2]
    assert copies[2][1] is not copies[1][1]  # 64 and 64.0
    assert str(copies[2][0][3]) == "-0.0" and str(copies[0][2][3]) == "0.0"


@pytest.mark.parametrize(
    ("arch_name", "algo", "options"),
    [("h100", "v2", {}), ("h100", "v3", {}), ("b200", "v4", {}), ("h100", "standard", {}), ("h100", "v1", {})],
)
def test_head_copies_equal_each_tile_copied_apart(arch_name: str, algo: str, options: dict[str, Any]) -> None:
    # `_head_copies` makes every head's copies with one table and one `HeadCopies` per head: each record equals the
    # record of the shape's template copied to that head alone.
    arch = load_arch(arch_name, {"sms": 8})
    problem = Problem(2, 3, 512, 64, pass_="bwd" if algo != "standard" else "fwd")
    checked = 0
    for kernel in schedule(arch, algo, problem, options):
        plan = plan_kernel(arch, kernel)
        axes = kernel.head_axes
        if not axes:
            continue
        tiles = list(kernel.tiles)
        copies = simgpu.fast_bytes._head_copies(plan, tiles)
        positions = {tuple(source[axes:]): n for n, source in enumerate(plan.sources)}  # type: ignore[index]
        shapes = simgpu.fast_bytes._replay_folded(plan)
        for tile, copy in zip(tiles, copies, strict=True):
            n = positions[tuple(tile[axes:])]  # type: ignore[index]
            source = plan.sources[n]
            if source == tile or n not in shapes:
                continue
            template = head_template(shapes[n].records, axes, tuple(source[:axes]))  # type: ignore[index]
            if template is None:
                continue
            assert copy.records == reheaded(template, tuple(tile[:axes]))  # type: ignore[index]
            checked += 1
    assert checked
