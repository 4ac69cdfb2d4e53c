"""The SM's plans kept on the op object (`simgpu.ops.PlanMemo`): an op object's plan is that of its shape, so an op
met again by identity ends where an equal op built anew ends."""

from __future__ import annotations

import pickle

from simgpu.arch import load_arch
from simgpu.engine import Engine
from simgpu.ops import Chain, Exp, Fma, Mma, Op, Vector


def test_a_plan_is_kept_for_the_same_op_role_size_and_arch_only() -> None:
    h100, h200 = load_arch("h100"), load_arch("h200")
    sm = Engine(h100, sms=1).sms[0]
    op, twin = Fma(64.0), Fma(64.0)
    assert op.memo is None
    sm.execute(op, 0.0, 4)
    memo = op.memo
    assert memo is not None and memo.arch is h100 and memo.warps == 4
    sm.execute(op, 0.0, 4)
    assert op.memo is memo  # found again: not derived anew
    assert twin.memo is None  # equal, but another object: found by its shape instead
    sm.execute(op, 0.0, 8)
    assert op.memo is not memo and op.memo is not None and op.memo.warps == 8
    Engine(h200, sms=1).sms[0].execute(op, 0.0, 8)
    assert op.memo is not None and op.memo.arch is h200


def test_the_memo_is_no_part_of_the_ops_value() -> None:
    sm = Engine(load_arch("h100"), sms=1).sms[0]
    op, twin = Mma(64, 128, 64, "bf16"), Mma(64, 128, 64, "bf16")
    sm.execute(op, 0.0, 4)
    assert op.memo is not None
    assert op == twin and hash(op) == hash(twin) and repr(op) == repr(twin)
    assert pickle.loads(pickle.dumps(op)).memo is None


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
