"""The SM's plans by op object (`simgpu.sm._OpMemo`): an op object's plan is that of its shape, so an op met again
by identity ends where an equal op built anew ends."""

from __future__ import annotations

from simgpu.arch import load_arch
from simgpu.engine import Engine
from simgpu.ops import Chain, Exp, Fma, Mma, Op, Vector
from simgpu.sm import MEMO_LIMIT, _OpMemo


def test_a_plan_is_found_by_the_same_op_and_role_size_only() -> None:
    memo: _OpMemo[str] = _OpMemo()
    op, twin = Fma(64.0), Fma(64.0)
    assert memo.get(op, 4) is None
    assert memo.put(op, 4, "plan") == "plan"
    assert memo.get(op, 4) == "plan"
    assert memo.get(twin, 4) is None  # equal, but another object: found by its shape instead
    assert memo.get(op, 8) is None


def test_the_memo_starts_again_at_its_limit() -> None:
    memo: _OpMemo[int] = _OpMemo()
    ops = [Fma(float(n)) for n in range(MEMO_LIMIT + 1)]
    for n, op in enumerate(ops):
        memo.put(op, 4, n)
    assert len(memo.entries) == 1
    assert memo.get(ops[-1], 4) == MEMO_LIMIT


def _ends(ops: list[Op]) -> list[float]:
    """The completions of `ops` issued one after another by a role of 4 warps on a fresh H100 SM."""
    sm = Engine(load_arch("h100"), sms=1).sms[0]
    ends, now = [], 0.0
    for op in ops:
        now = sm.execute(op, now, 4)  # type: ignore[arg-type]
        ends.append(now)
    return ends


def test_ops_met_again_end_as_equal_ops_built_anew() -> None:
    def ops() -> list[Op]:
        chain = Chain(fma=4.0, mufu=2.0)
        return [
            Vector(fma=512.0, alu=128.0, ex2=256.0, chain=chain, issue=32.0),
            Exp(256.0, emulated_fraction=0.25, fma_per_emulated=6.0),
            Mma(64, 128, 64, "bf16"),
        ]

    reused = ops()
    assert _ends(reused * 3) == _ends(ops() + ops() + ops())
