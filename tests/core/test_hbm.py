"""The HBM unit (`simgpu.units.hbm`): written bytes cost more than read ones, and the extra latency a miss pays grows
with the recent bookings."""

from __future__ import annotations

import math

import pytest

from simgpu.arch import LoadedLatencySpec, load_arch
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


def test_a_representatives_own_bookings_load_it_as_they_come_and_the_other_sms_at_their_average() -> None:
    # One SM standing for ten (own share 0.1, full load a tenth of the chip's): 25 KB booked at cycle 0. At once
    # its burst is all the load there is (the others' average so far is its own over the first window), 200 extra
    # as above. Four windows later its own burst has decayed by e^4, but the other nine SMs' traffic, which does not
    # come in step with its own, stays at the average of its bookings since the first: 25 KB over 4000 cycles.
    spec = LoadedLatencySpec(extra_cycles=400.0, knee_utilization=0.5, window_cycles=1000.0)
    knee = 0.5 * 100.0
    spread = Hbm(500.0, 50.0, loaded=spec, full_load_bytes_per_cycle=100.0, own_share=0.1)
    spread.read(0.0, 25_000)
    assert spread.latency(0.0) == pytest.approx(50.0 + 200.0)
    rate = 0.1 * 25.0 * math.exp(-4.0) + 0.9 * 25_000 / 4000
    assert spread.latency(4000.0) == pytest.approx(50.0 + 400.0 * rate / knee)
    # All of the load its own (exact mode's chip, own share 1): the burst alone, decayed.
    in_step = Hbm(500.0, 50.0, loaded=spec, full_load_bytes_per_cycle=100.0)
    in_step.read(0.0, 25_000)
    assert in_step.latency(4000.0) == pytest.approx(50.0 + 400.0 * 25.0 * math.exp(-4.0) / knee)


def test_a_written_byte_takes_the_write_cost_of_the_read_rate() -> None:
    # 1000 B/cycle for reads, a written byte 1.25 read bytes: 4000 B read then 4000 B written end at 4 and 9 cycles,
    # and both are counted as the bytes they are.
    hbm = Hbm(1000.0, 50.0, write_cost=1.25)
    assert hbm.read(0.0, 4000) == pytest.approx(4.0)
    assert hbm.write(0.0, 4000) == pytest.approx(9.0)
    assert (hbm.read_bytes, hbm.write_bytes) == (4000, 4000)
    assert hbm.server.busy_cycles == pytest.approx(9.0)


def test_the_h200s_mix_law_gives_its_measured_streams() -> None:
    # validation/h200/hbm_mix/: a 1:1 mix 3.99 TB/s, 1 read per 3 writes 3.79-3.81, 2 reads per write 4.10-4.13.
    hbm = load_arch("h200").hbm
    read_rate = hbm.sustained_bytes_per_s

    def tb_per_s(writes_per_byte: float) -> float:
        return 1.0 / ((1 - writes_per_byte) / read_rate + writes_per_byte * hbm.write_cost_ratio / read_rate) / 1e12

    assert tb_per_s(0.5) == pytest.approx(3.99, abs=0.02)
    assert tb_per_s(0.75) == pytest.approx(3.80, abs=0.02)
    assert tb_per_s(1 / 3) == pytest.approx(4.12, abs=0.02)
