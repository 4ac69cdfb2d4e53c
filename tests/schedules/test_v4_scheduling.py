"""v4 tile orders and the deterministic backward: FA4's L2-sectioned orders, dQ adds ordered by semaphores in the
order of the tile queue, and what the ordering costs (exact mode: fast mode's representative SMs do not wait)."""

from __future__ import annotations

from collections.abc import Sequence

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.kernel import Kernel
from simgpu.ops import Load, Op, Repeat, Store

B200 = load_arch("b200")


def flat(ops: Sequence[Op]) -> list[Op]:
    out: list[Op] = []
    for op in ops:
        if isinstance(op, Repeat):
            for i in range(op.count):
                out += flat(op.body(i))
        else:
            out.append(op)
    return out


def backward(problem: Problem, **options: object) -> Kernel:
    return schedule(B200, "v4", problem, options)[1]


def test_causal_deterministic_backward_runs_shortest_key_blocks_first_and_adds_in_that_order() -> None:
    # 4 key blocks of one head; key block j is seen by Q tiles j..3. FA4's `spt`: blocks 3, 2, 1, 0, and the adds
    # into dQ_i in the same order, so block j waits for the i - j blocks after it (FA's n_block_max - 1 - n_block).
    kernel = backward(Problem(1, 1, 512, 128, causal=True, pass_="bwd"), deterministic=True)
    assert list(kernel.tiles) == [(0, 0, 3), (0, 0, 2), (0, 0, 1), (0, 0, 0)]
    dq = next(role for role in kernel.roles if role.name == "dq")
    for tile in kernel.tiles:
        j = tile[2]
        ops = flat(dq.program(tile))
        acquires = [(op.tile, op.acquire) for op in ops if isinstance(op, Load) and op.acquire is not None]
        releases = [op.tile for op in ops if isinstance(op, Store) and op.release]
        assert acquires == [((0, 0, i, 0), i - j) for i in range(j, 4)]
        assert releases == [(0, 0, i, 0) for i in range(j, 4)]


def test_two_cta_deterministic_backward_orders_each_half_of_dq_separately() -> None:
    # Non-causal: blocks 0..3 in order; block j adds half j % 2 of every dQ_i after the j // 2 blocks of its half.
    kernel = backward(Problem(1, 1, 512, 128, pass_="bwd"), deterministic=True, two_cta=True)
    dq = next(role for role in kernel.roles if role.name == "dq")
    for tile in kernel.tiles:
        j = tile[2]
        acquires = {(op.tile, op.acquire) for op in flat(dq.program(tile)) if isinstance(op, Load) and op.acquire}
        assert acquires == ({((0, 0, i, j % 2), j // 2) for i in range(4)} if j >= 2 else set())


def test_causal_forward_takes_fa4s_l2_sections_longest_first() -> None:
    # K and V of one head (N = 1024, d = 128, bf16): 512 KiB, so a 50 MiB section holds 64 heads: all 3 here.
    # Items (pairs of Q tiles) outermost, heads innermost; with `lpt` (the default when causal) the last item,
    # which sees the most keys, first.
    problem = Problem(1, 3, 1024, 128, causal=True)
    (lpt,) = schedule(B200, "v4", problem, {})
    assert list(lpt.tiles)[:4] == [(0, 0, 3), (0, 1, 3), (0, 2, 3), (0, 0, 2)]
    (plain,) = schedule(B200, "v4", problem, {"lpt": False})
    assert list(plain.tiles)[:4] == [(0, 0, 0), (0, 1, 0), (0, 2, 0), (0, 0, 1)]


def test_deterministic_backward_is_slower_and_the_semaphore_waits_are_why() -> None:
    # One wave (16 CTAs on 148 SMs): every key block of a head runs at once, and key block j can add into dQ_i only
    # after block j - 1 has, which it releases only once it has issued its add into dQ_(i+1): a wavefront, one Q
    # tile per block. Without the waits the same kernels take as long as the non-deterministic ones.
    problem = Problem(1, 4, 512, 128, pass_="bwd")
    free = Engine(B200).run(schedule(B200, "v4", problem, {})).cycles
    ordered = schedule(B200, "v4", problem, {"deterministic": True})
    waiting = Engine(B200).run(ordered).cycles
    not_waiting = Engine(B200, semaphore_waits=False).run(ordered).cycles
    assert waiting > 1.2 * free
    assert abs(not_waiting / free - 1) < 0.02
