"""v4 tile orders and the deterministic backward: FA4's L2-sectioned orders, dQ adds ordered by semaphores in the
order of the tile queue, and what the ordering costs (exact mode: fast mode's representative SMs do not wait)."""

from __future__ import annotations

from collections.abc import Sequence

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.kernel import Kernel
from simgpu.ops import Load, Mma, Op, Repeat, Store, Wait

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
    # tile per block. Without the semaphore waits the same kernels are only a little slower than the
    # non-deterministic ones: each dQ chunk's add must complete before its buffer is reused (FA's read=False).
    problem = Problem(1, 4, 512, 128, pass_="bwd")
    free = Engine(B200).run(schedule(B200, "v4", problem, {})).cycles
    ordered = schedule(B200, "v4", problem, {"deterministic": True})
    waiting = Engine(B200).run(ordered).cycles
    not_waiting = Engine(B200, semaphore_waits=False).run(ordered).cycles
    assert waiting > 1.2 * free
    assert free <= not_waiting < 1.05 * free


def test_dq_goes_out_in_fa4s_chunks_and_deterministic_adds_complete_before_their_buffer_is_reused() -> None:
    # FA4's dQacc_reduce (1-CTA, d = 128): dQ_i leaves TMEM at once, then 4 chunks of 32 fp32 columns (16 KiB) go
    # through 2 smem buffers, one TMA reduce-add each. Non-deterministic: a buffer is reused once its add has read it
    # (the role's own Smem read); deterministic: once the add has completed, waited for one chunk later, and dQ_(i-1)
    # is released after the wait that follows dQ_i's first chunk, when all of dQ_(i-1)'s adds have completed.
    problem = Problem(1, 1, 384, 128, pass_="bwd")  # 3 Q tiles, 3 key blocks
    for deterministic in (False, True):
        kernel = backward(problem, deterministic=deterministic)
        dq = next(role for role in kernel.roles if role.name == "dq")
        ops = flat(dq.program(kernel.tiles[0]))
        adds = [op for op in ops if isinstance(op, Store) and op.tensor == "dQaccum"]
        assert [op.nbytes for op in adds] == [128 * 32 * 4] * 12
        waits = [op for op in ops if isinstance(op, Wait) and op.barrier == "dq_added@w"]
        assert len(waits) == (12 if deterministic else 0)  # 11 after the next chunk's issue, 1 at the end
        if deterministic:
            events = [
                "add" if op in adds else "wait" if op in waits else f"release {op.tile[2]}"
                for op in ops
                if op in adds or op in waits or (isinstance(op, Store) and op.release)
            ]
            assert events[:8] == ["add", "add", "wait", "add", "wait", "add", "wait", "add"]
            assert events[8:10] == ["wait", "release 0"]  # after dQ_1's first chunk: dQ_0 has landed
            assert events[-2:] == ["wait", "release 2"]
    # smem, as FA4's 1-CTA kernel: K, V; two Q_i buffers and one dO_i (16 bits); dS; two 16 KiB dQ buffers; LSE_i
    # per Q buffer and D_i. The 32 KiB the chunked dQ path saves (against staging all of dQ_i) holds the second Q_i.
    assert kernel.cta.smem_bytes == 2 * 32768 + 3 * 32768 + 32768 + 2 * 16384 + 3 * 512


def test_backward_mma_warp_issues_in_fa4s_order() -> None:
    # FA4's 1-CTA main loop: S(k), then dK and dQ of the previous Q tile, then dP(k) and dV(k); dK and dQ of the
    # last Q tile close the work item. dP(k) waits until the dq warps have drained dQ(k-1) (they share TMEM columns).
    kernel = backward(Problem(1, 1, 384, 128, pass_="bwd"))
    mma = next(role for role in kernel.roles if role.name == "mma")
    names = {"s_full": "S", "dp_full": "dP", "do_empty": "dV", "dq_full": "dQ", "dkv_full": "dK", None: "dK"}
    order = []
    for op in flat(mma.program(kernel.tiles[0])):
        if isinstance(op, Mma):
            order.append(names[op.arrive])  # type: ignore[index]
        elif isinstance(op, Wait) and op.barrier == "dq_empty":
            order.append("drained")
    assert order == [
        "S", "drained", "dP", "dV",
        "S", "dK", "dQ", "drained", "dP", "dV",
        "S", "dK", "dQ", "drained", "dP", "dV",
        "dK", "dQ",
    ]  # fmt: skip


def test_two_cta_backward_issues_in_fa4s_two_cta_order() -> None:
    # FA4's 2-CTA main loop (d <= 128): S(k), dK(k-1), dP(k), dQ(k-1), dV(k); dK and dQ of the last Q tile close the
    # item. dQ waits for the exchanged dS, dK only for dS^T in TMEM; S(k) waits until dQ(k-2) has left TMEM (dQ's
    # columns overlap S's), and dP waits for nothing the dq warps do.
    kernel = backward(Problem(1, 1, 384, 128, pass_="bwd"), two_cta=True)
    mma = next(role for role in kernel.roles if role.name == "mma")
    names = {"s_full": "S", "dp_full": "dP", "dov_empty": "dV", "dq_full": "dQ", "dkv_full": "dK", None: "dK"}
    waits = {"dq_empty": "drained", "ds_full": "exchanged", "dst_full": "dS^T"}
    order = []
    for op in flat(mma.program(kernel.tiles[0])):
        if isinstance(op, Mma):
            order.append(names[op.arrive])  # type: ignore[index]
        elif isinstance(op, Wait) and op.barrier in waits:
            order.append(waits[op.barrier])  # type: ignore[index]
    assert order == [
        "S", "dP", "dV",
        "drained", "S", "dS^T", "dK", "dP", "exchanged", "dQ", "dV",
        "drained", "S", "dS^T", "dK", "dP", "exchanged", "dQ", "dV",
        "dS^T", "dK", "exchanged", "drained", "dQ",
    ]  # fmt: skip


def test_two_cta_backward_loads_each_query_side_operand_as_two_halves() -> None:
    # Each CTA of the pair holds half of Q_i and of dO_i by rows (S^T, dP^T) and half by columns (dK, dV): four
    # one-buffer rings whose bytes add up to the 1-CTA kernel's Q_i and dO_i; K comes once more for dQ.
    problem = Problem(1, 1, 384, 128, pass_="bwd")
    bytes_per_tile = 128 * 128 * 2
    for two_cta in (False, True):
        kernel = backward(problem, two_cta=two_cta)
        load = next(role for role in kernel.roles if role.name == "load")
        ops = [op for op in flat(load.program(kernel.tiles[0])) if isinstance(op, Load)]
        operand = {name: sum(op.nbytes for op in ops if op.tensor == name) for name in ("Q", "dO", "K")}
        assert operand == {
            "Q": 3 * bytes_per_tile,
            "dO": 3 * bytes_per_tile,
            "K": (2 if two_cta else 1) * bytes_per_tile,
        }
        rings = {op.arrive for op in ops if op.tensor in ("Q", "dO")}
        assert rings == ({"q_full", "do_full", "qt_full", "dov_full"} if two_cta else {"q_full", "do_full"})
