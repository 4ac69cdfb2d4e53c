"""Loop bodies shared between tiles and folds: the schedules hand the folds one body object for alike loop iterations
(the key blocks of a head in FlashAttention's backward, v1's key blocks of a tile), and the L2 replay's folds weight
each such body once (`simgpu.fold.FoldMemo`). Both must leave every fold as it was when each was built apart."""

from __future__ import annotations

import pytest

from algorithms.v1.schedule import _QueryBlocks, config
from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.fast_plan import plan_kernel
from simgpu.fold import FoldMemo, fold_tile
from simgpu.ops import Load, Repeat, Store


@pytest.mark.parametrize(
    ("arch_name", "algo", "seqlen"),
    [("h100", "v2", 8192), ("h200", "v3", 8192), ("b200", "v4", 8192), ("h100", "v1", 16384)],
)
def test_replay_folds_that_share_a_memo_equal_folds_made_apart(arch_name: str, algo: str, seqlen: int) -> None:
    # The replay's folds of a kernel share the plan's memo (`KernelPlan.fold_memo`): the same programs, iteration
    # counts and widenings as folds that each weight their bodies anew, and the weighted memory ops are made once.
    arch = load_arch(arch_name)
    kernel = next(
        k for k in schedule(arch, algo, Problem(1, 2, seqlen, 128, pass_="bwd"), {}) if k.name.endswith("bwd")
    )
    plan = plan_kernel(arch, kernel)
    spec = plan.replay_spec
    assert spec.sampled or spec.sampled_top  # the replay samples the loops: bodies are weighted
    tiles = [kernel.tiles[n] for n in range(0, min(len(kernel.tiles), 24), 3)]
    shared = [fold_tile(kernel, tile, spec, memo=plan.fold_memo) for tile in tiles]
    apart = [fold_tile(kernel, tile, spec, memo=FoldMemo()) for tile in tiles]
    for left, right in zip(shared, apart, strict=True):
        assert (left.programs, left.executed, left.full) == (right.programs, right.executed, right.full)
        for side in plan.replay_sides:
            wide, other = left.widened(side, plan.spec.period), right.widened(side, plan.spec.period)
            assert (wide.programs, wide.executed) == (other.programs, other.executed)
    # The weighted copies of one body are one object wherever the shared folds put them.
    weighted = [
        {
            (op.tensor, op.tile, op.nbytes): id(op)
            for program in tile.programs
            for op in program
            if type(op) in (Load, Store)
        }
        for tile in shared
    ]
    common = set(weighted[0]).intersection(*weighted[1:])
    assert any(len({ids[key] for ids in weighted}) == 1 for key in common)


@pytest.mark.parametrize(("arch_name", "algo"), [("h100", "v2"), ("h200", "v3"), ("b200", "v4")])
@pytest.mark.parametrize("causal", [False, True])
def test_key_blocks_share_loop_bodies_and_each_step_is_built_once(arch_name: str, algo: str, causal: bool) -> None:
    # Without a causal mask the middle key blocks of a head run one loop body (one function, each step built once);
    # with one, each key block's body gives the steps of its own visits. Either way a step, asked again, is the
    # object its first call built (the replay's folds find its weighted copy by it, `FoldMemo`).
    arch = load_arch(arch_name)
    kernel = next(
        k
        for k in schedule(arch, algo, Problem(1, 2, 4096, 128, causal=causal, pass_="bwd"), {})
        if k.name.endswith("bwd")
    )
    head = [tile for tile in kernel.tiles if tile[:2] == kernel.tiles[0][:2]]  # type: ignore[index]
    middle = sorted(head, key=lambda tile: tile[-1])[1:3]  # type: ignore[index]
    for role in kernel.roles:
        found = [next((op for op in role.program(tile) if type(op) is Repeat), None) for tile in middle]
        loops = [loop for loop in found if loop is not None]
        if not loops:  # (v4's epilogue)
            continue
        if not causal:
            assert loops[0].body is loops[1].body
        for loop in loops:
            assert all(loop.body(k) is loop.body(k) for k in range(loop.count))


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("splits", [1, 3])
def test_v1_step_places_tell_the_steps_apart(causal: bool, splits: int) -> None:
    # v1 builds a query step once per tile for the key blocks where it is alike, found by its place
    # (`_Steps.place`): the query block, mask, last-ness and next query block that the steps themselves hold.
    problem = Problem(1, 2, 1000, 64, seqlen_k=1500, causal=causal)
    blocks = _QueryBlocks(problem, config(problem, {}))
    for j in range(6):
        steps = blocks.steps(j, splits, 1 % splits)
        for k in range(len(steps)):
            step, following = steps[k], steps[k + 1] if k + 1 < len(steps) else None
            assert steps.place(k) == (step.i, step.masked, step.last, -1 if following is None else following.i)
