"""A unit's busy fraction over a run, per window, from a trace's spans (`simgpu.trace.busy_per_window`)."""

from __future__ import annotations

import pytest

from simgpu import Problem, SimgpuError, Trace, load_arch, simulate
from simgpu.trace import Span, busy_per_window


def test_spans_cover_their_windows_and_other_tracks_do_not_count() -> None:
    spans = [
        Span("chip", "unit hbm", "hbm", 0.0, 150.0),
        Span("chip", "unit hbm", "hbm", 250.0, 260.0),
        Span("chip", "unit l2", "l2", 0.0, 300.0),
    ]
    assert busy_per_window(spans, "unit hbm", 100.0, 300.0) == [1.0, 0.5, 0.1, 0.0]


def test_the_hbm_busy_per_window_sums_to_the_runs_busy_cycles() -> None:
    trace = Trace(sms=(), max_spans=100_000)
    result = simulate(load_arch("h100"), "v2", Problem(1, 2, 512, 64), mode="exact", trace=trace)
    busy = busy_per_window(trace.spans, "unit hbm", 1000.0, result.cycles)
    assert sum(busy) * 1000.0 == pytest.approx(result.busy["hbm"] * result.cycles)


def test_a_window_of_no_length_is_refused() -> None:
    with pytest.raises(SimgpuError, match="a window must be positive; got 0"):
        busy_per_window([], "unit hbm", 0.0, 100.0)
