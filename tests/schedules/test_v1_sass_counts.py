"""FA1's released forward: the step instructions counted from its SASS, and where the v1 schedule issues them."""

from __future__ import annotations

import contextlib
import importlib.util
import io
from pathlib import Path

import pytest

from algorithms.v1.sass_counts import MEASURED, StepInstructions, step_instructions
from algorithms.v1.schedule import config, forward_kernel
from simgpu import Problem
from simgpu.ops import Repeat, Vector

ROOT = Path(__file__).resolve().parents[2]


def test_the_table_is_what_the_committed_source_pages_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """`MEASURED` is the counting script's output from the committed Nsight Compute pages, to the digit."""
    monkeypatch.chdir(ROOT)
    spec = importlib.util.spec_from_file_location("fa1_sass_counts", ROOT / "docs/results/fa1_sass_counts.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        script.main()
    for headdim, (first, later) in MEASURED.items():
        rows = [(c.imad, c.integer, c.issue_only) for c in (first, later)]
        assert f"  {headdim}: {rows}" in printed.getvalue()


def test_counts_lie_on_the_line_through_the_two_head_dims() -> None:
    assert step_instructions(64, first=False) == MEASURED[64][1]
    assert step_instructions(128, first=True) == MEASURED[128][0]
    middle = step_instructions(96, first=False)
    low, high = MEASURED[64][1], MEASURED[128][1]
    assert middle.imad == pytest.approx((low.imad + high.imad) / 2)
    assert middle.issue_only == pytest.approx((low.issue_only + high.issue_only) / 2)
    assert step_instructions(1, first=False).integer == 0.0  # a count: never below zero


def _rescales(problem: Problem) -> list[Vector]:
    """The forward's vectors that carry issue-only instructions, from every step of the one tile's program."""
    kernel = forward_kernel(problem, config(problem, {}))
    program = kernel.roles[0].program(kernel.tiles[0])
    found: list[Vector] = []
    for outer in program:
        assert isinstance(outer, Repeat)
        for j in range(outer.count):
            for op in outer.body(j):
                if isinstance(op, Repeat):
                    for k in range(op.count):
                        found += [o for o in op.body(k) if isinstance(o, Vector) and o.issue > 0]
    return found


def test_each_step_issues_its_key_blocks_counts() -> None:
    """Two key blocks of 256 at d = 64, 32 query steps each: the first block's steps carry the first loop's counts,
    the second's the later loop's, over the CTA's 128 threads."""
    problem = Problem(1, 1, 512, 64)
    vectors = _rescales(problem)
    first, later = MEASURED[64]
    rows = 16
    assert len(vectors) == 2 * 512 // rows
    for vector, counts in zip(vectors, [first] * 32 + [later] * 32, strict=True):
        assert vector.issue == pytest.approx(128 * counts.issue_only)
        assert vector.alu == pytest.approx(rows + 128 * counts.integer)


def test_step_instructions_are_a_frozen_record() -> None:
    counts = StepInstructions(1.0, 2.0, 3.0)
    with pytest.raises(AttributeError):
        counts.imad = 2.0  # type: ignore[misc]
