"""v1's key blocks that run the same query steps share one loop body (`algorithms.v1.schedule._built_once`), found by
`_Steps.signature`: blocks with one signature must have every step's place alike, and a shared body must give each
key block the steps it gave when each block had its own. A key block loop tells the query steps each block holds
(`Repeat.held`) as counting its built body does (`simgpu.fold`)."""

from __future__ import annotations

import pytest

from algorithms.v1.schedule import _QueryBlocks, backward_kernel, config, forward_kernel
from simgpu import Problem
from simgpu.fold import _count
from simgpu.ops import Repeat


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("splits", [1, 3])
@pytest.mark.parametrize("seqlen_k", [1000, 1500, 700])
def test_key_blocks_with_one_signature_have_the_same_places(causal: bool, splits: int, seqlen_k: int) -> None:
    problem = Problem(1, 2, 1000, 64, seqlen_k=seqlen_k, causal=causal)
    blocks = _QueryBlocks(problem, config(problem, {"block_m": 48, "block_n": 64}))
    for z in range(splits):
        places: dict[tuple[int, ...], list[tuple[int, bool, bool, int]]] = {}
        for j in range(-(-seqlen_k // 64)):
            steps = blocks.steps(j, splits, z)
            found = [steps.place(k) for k in range(len(steps))]
            assert places.setdefault(steps.signature(), found) == found


def test_middle_key_blocks_share_a_body_that_gives_each_step_as_built() -> None:
    problem = Problem(1, 2, 2048, 64, pass_="bwd")
    kernel = backward_kernel(problem, config(problem, {}))
    program = kernel.roles[0].program(kernel.tiles[0])
    outer = next(op for op in program if type(op) is Repeat)
    loops = [next(op for op in outer.body(j) if type(op) is Repeat) for j in range(outer.count)]
    # Without a causal mask the middle key blocks run one body (the bound `__getitem__` of one `_StepBody`).
    bodies = [loop.body.__self__ for loop in loops]  # type: ignore[attr-defined]
    assert len({id(body) for body in bodies[1:-1]}) == 1
    assert bodies[0] is not bodies[1] and bodies[-1] is not bodies[1]
    for loop in loops:
        assert all(loop.body(k) is loop.body(k) for k in range(loop.count))


@pytest.mark.parametrize(("pass_", "splits"), [("fwd", 1), ("fwd", 3), ("bwd", 1)])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("seqlen_k", [1000, 1500, 700])
def test_a_key_block_loop_tells_what_its_blocks_hold_as_their_bodies_count(
    pass_: str, splits: int, causal: bool, seqlen_k: int
) -> None:
    problem = Problem(1, 2, 1000, 64, seqlen_k=seqlen_k, causal=causal, pass_=pass_)
    make = forward_kernel if pass_ == "fwd" else backward_kernel
    kernel = make(problem, config(problem, {"block_m": 48, "block_n": 64, "splits": splits}))
    told = []
    for tile in kernel.tiles:
        for op in kernel.roles[0].program(tile):
            if type(op) is Repeat and op.held is not None:
                told += [(op.held(j), _count(op.body(j))) for j in range(op.count)]
    assert len(told) == len(kernel.tiles) * -(-seqlen_k // 64)  # every tile's key blocks
    assert all(held == counted for held, counted in told)
    assert any(held for held, _ in told)
