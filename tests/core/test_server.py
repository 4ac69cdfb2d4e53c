"""Two units' work sharing a window at reduced rates (`simgpu.units.contention.share_window`): exact arithmetic on
both branches, and the reservation server's `stretch`."""

from __future__ import annotations

import pytest

from simgpu.units.contention import share_window
from simgpu.units.server import Server


def reserved(name: str, until: float) -> Server:
    server = Server(name, 1.0)
    server.reserve(0.0, until)
    return server


def test_the_unit_with_less_slowed_work_finishes_first_and_the_other_then_runs_at_full_rate() -> None:
    tensor, pipe = reserved("tensor", 100.0), reserved("fma", 70.0)  # from t = 20: 80 and 50 cycles of work
    share_window(20.0, tensor, 0.25, pipe, 0.5)
    # The pipe alone-beside-the-tensor would end at 20 + 50 / 0.5 = 120, the tensor at 20 + 80 / 0.25 = 340: the pipe
    # ends at 120, having let the tensor do 0.25 x 100 = 25 of its 80; the other 55 run at full rate after 120.
    assert (pipe.busy_until, tensor.busy_until) == (120.0, 175.0)
    assert (pipe.busy_cycles, tensor.busy_cycles) == (120.0, 175.0)


def test_the_overlap_ends_when_the_first_unit_is_done_whichever_it_is() -> None:
    tensor, pipe = reserved("tensor", 30.0), reserved("fma", 200.0)  # from t = 0: 30 and 200 cycles of work
    share_window(0.0, tensor, 0.5, pipe, 0.8)
    # The tensor ends first, at 30 / 0.5 = 60; the pipe did 0.8 x 60 = 48 of its 200 by then, the rest after.
    assert (tensor.busy_until, pipe.busy_until) == (60.0, 212.0)


@pytest.mark.parametrize("start", [100.0, 150.0])
def test_a_unit_with_nothing_pending_after_the_start_changes_nothing(start: float) -> None:
    tensor, pipe = reserved("tensor", 100.0), reserved("fma", 300.0)
    share_window(start, tensor, 0.5, pipe, 0.5)
    assert (tensor.busy_until, pipe.busy_until) == (100.0, 300.0)


def test_a_stretch_moves_the_end_and_the_watched_completions_inside_the_slowed_work() -> None:
    server = reserved("pipe", 100.0)
    before, inside, after = server.watch(10.0, 0.0), server.watch(50.0, 0.0), server.watch(100.0, 0.0)
    server.stretch(20.0, 40.0, 0.5)  # from t = 20, 40 cycles at half rate: 20 cycles of work done, 20 lost
    # 30 cycles of work lie before the completion at 50: the first 20 take the 40 slowed cycles, the rest 10 more.
    assert (before.end, inside.end, after.end) == (10.0, 70.0, 120.0)
    assert (server.busy_until, server.busy_cycles) == (120.0, 120.0)
    assert server.watchers == [inside, after]  # a completion before the stretch is final
