"""`simgpu.ops` as it runs (compiled with mypyc where built): every op pickles to an equal op of its class (sweeps
send them to other processes), stays frozen, and its `__init__` takes the fields with the dataclass's defaults."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from simgpu.ops import (
    Advance,
    Alu,
    Arrive,
    Chain,
    Delay,
    Exp,
    Fma,
    HashedKeys,
    Load,
    Mma,
    Piece,
    Repeat,
    Smem,
    Store,
    Tmem,
    Vector,
    Wait,
)

OPS = (
    Chain(fma=2.0, shuffle=2.0),
    Piece(("row", 1), HashedKeys([("S", 0), ("S", 1)])),
    Load("K", ("b", 3), 64, engine="cp_async", arrive="kv", acquire=None, address_instructions=6.0, rounds=3),
    Store("dQ", ("b", 4), 128.5, engine="tma", atomic=True, wait=True, arrive=("out", 1), release=True),
    Mma(64, 128, 16, "bf16", a="reg", acc="tmem", arrive="mma", instruction="mma_sync", b_share=2),
    Exp(256.0, emulated_fraction=0.25, fma_per_emulated=10.0, chain=Chain(mufu=4.0)),
    Fma(128.0, arrive="s"),
    Alu(64.0, chain=Chain(alu=3.0)),
    Vector(fma=4.0, alu=1.0, ex2=0.5, arrive="s", chain=Chain(fma=1.0), issue=2.0),
    Smem(read_bytes=1024.0, write_bytes=512.0, arrive="x", dsmem_bytes=512.0),
    Tmem(read_bytes=64.0, write_bytes=32.0),
    Delay(40.0),
    Arrive("ready"),
    Wait(("ready", 1)),
    Advance(("kv", "s")),
)


@pytest.mark.parametrize("op", OPS, ids=lambda op: type(op).__name__)
def test_an_op_pickles_to_an_equal_op_of_its_class_and_stays_frozen(op: object) -> None:
    again = pickle.loads(pickle.dumps(op))
    assert type(again) is type(op) and again == op and hash(again) == hash(op)
    first = dataclasses.fields(op)[0].name  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(op, first, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        delattr(op, first)


@pytest.mark.parametrize("op", OPS, ids=lambda op: type(op).__name__)
def test_an_op_is_rebuilt_from_its_fields_by_keyword_and_by_position(op: object) -> None:
    values = {f.name: getattr(op, f.name) for f in dataclasses.fields(op) if f.init}  # type: ignore[arg-type]
    assert type(op)(**values) == op
    assert type(op)(*values.values()) == op
    assert dataclasses.replace(op) == op  # type: ignore[type-var]


@pytest.mark.parametrize("op", OPS, ids=lambda op: type(op).__name__)
def test_the_fields_left_out_take_the_dataclass_s_defaults(op: object) -> None:
    fields = dataclasses.fields(op)  # type: ignore[arg-type]
    made = type(op)(**{f.name: getattr(op, f.name) for f in fields if f.init and f.default is dataclasses.MISSING})
    for each in fields:
        if each.init and each.default is not dataclasses.MISSING:
            assert getattr(made, each.name) == each.default, each.name


def test_a_repeat_keeps_its_body() -> None:
    def body(i: int) -> tuple[Delay, ...]:
        return (Delay(float(i)),)

    loop = Repeat(3, body)
    assert loop.count == 3 and loop.body is body and loop == Repeat(3, body)
