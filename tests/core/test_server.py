"""The reservation server's contention stretch (`Server.slow_pending`): exact arithmetic on both branches."""

from __future__ import annotations

import pytest

from simgpu.units.server import Server


def reserved(until: float) -> Server:
    server = Server("pipe", 1.0)
    server.reserve(0.0, until)
    return server


def test_pending_work_inside_the_window_runs_at_the_fraction() -> None:
    server = reserved(100.0)  # 40 cycles of work pending after t = 60
    server.slow_pending(60.0, 200.0, 0.5)  # the window outlasts the slowed work: 40 / 0.5
    assert server.busy_until == 140.0
    assert server.busy_cycles == 140.0


def test_pending_work_beyond_the_window_runs_at_full_rate_after_it() -> None:
    server = reserved(100.0)
    server.slow_pending(0.0, 50.0, 0.5)  # 25 cycles of work done in the window, the other 75 after it
    assert server.busy_until == 125.0
    assert server.busy_cycles == 125.0


@pytest.mark.parametrize(("start", "window_end", "fraction"), [(100.0, 200.0, 0.5), (0.0, 0.0, 0.5), (0.0, 50.0, 1.0)])
def test_nothing_pending_no_window_or_no_contention_changes_nothing(
    start: float, window_end: float, fraction: float
) -> None:
    server = reserved(100.0)
    server.slow_pending(start, window_end, fraction)
    assert (server.busy_until, server.busy_cycles) == (100.0, 100.0)
