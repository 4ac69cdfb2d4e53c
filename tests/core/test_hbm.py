"""The HBM unit's loaded latency (`simgpu.units.hbm`): the extra a miss pays grows with the recent bookings."""

from __future__ import annotations

import math

import pytest

from simgpu.arch import LoadedLatencySpec
from simgpu.units.hbm import Hbm


def test_the_hbms_loaded_latency_follows_the_recent_bookings() -> None:
    # Extra 400 cycles at half the rate and beyond. 250 KB booked at cycle 0 over a 1000-cycle window: 250 B/cycle,
    # a quarter of the 1000 B/cycle, 200 extra; a window later the average has decayed by e. A run of one SM that
    # stands for ten (fast mode) books a tenth of the traffic: its full load is a tenth of the chip's rate.
    spec = LoadedLatencySpec(extra_cycles=400.0, knee_utilization=0.5, window_cycles=1000.0)
    hbm = Hbm(1000.0, 50.0, loaded=spec)
    assert hbm.latency(0.0) == 50.0
    hbm.read(0.0, 250_000)
    assert hbm.latency(0.0) == pytest.approx(50.0 + 200.0)
    assert hbm.latency(1000.0) == pytest.approx(50.0 + 200.0 * math.exp(-1.0))
    representative = Hbm(500.0, 50.0, loaded=spec, full_load_bytes_per_cycle=100.0)
    representative.read(0.0, 25_000)
    assert representative.latency(0.0) == pytest.approx(50.0 + 200.0)
    assert Hbm(1000.0, 50.0).latency(0.0) == 50.0  # without a spec: the idle latency whatever the load
