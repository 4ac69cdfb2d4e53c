"""The clock a run executes at (`simgpu.clock`): the power law in tensor activity, under the tensor-active ceiling."""

from __future__ import annotations

import pytest

from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.clock import power_limited_clock_hz, starting_clock_hz


def test_saturated_tensor_cores_run_at_the_saturated_clock() -> None:
    h200 = load_arch("h200")
    assert power_limited_clock_hz(h200, 1.0) == 1.598e9


def test_the_law_rises_as_activity_falls_until_the_tensor_active_ceiling() -> None:
    h200 = load_arch("h200")
    # mma.sync at full rate (two thirds of wgmma's): the law alone gives 1829 MHz, over the ceiling of 1800.
    law = 1.598e9 * (2 / 3) ** (-1 / 3)
    assert law == pytest.approx(1.8293e9, rel=1e-4)
    assert power_limited_clock_hz(h200, 2 / 3) == 1.8e9
    assert power_limited_clock_hz(h200.with_overrides({"power.tensor_active_clock_hz": None}), 2 / 3) == law
    # Near saturation the law is below the ceiling and stays the clock.
    assert power_limited_clock_hz(h200, 0.9) == 1.598e9 * 0.9 ** (-1 / 3)


def test_a_run_without_tensor_work_keeps_the_card_clock() -> None:
    assert power_limited_clock_hz(load_arch("h200"), 0.0) == 1.98e9


def test_the_ceiling_binds_only_below_the_card_clock() -> None:
    # The H100 file's clock is FA3's locked 1830 MHz, 3 MHz above its tensor-active ceiling: unlocked (a what-if at
    # the card's 1980 MHz) a light tensor run falls to the ceiling.
    h100 = load_arch("h100")
    assert power_limited_clock_hz(h100, 0.1) == 1.827e9
    assert power_limited_clock_hz(h100.with_overrides({"clock_hz": 1.98e9}), 0.1) == 1.827e9
    assert power_limited_clock_hz(h100.with_overrides({"clock_hz": 1.7e9}), 0.1) == 1.7e9


def test_a_prediction_that_uses_the_tensor_cores_runs_at_the_tensor_active_clock() -> None:
    # v2's forward on the H200 uses mma.sync at a small share of the native rate: the law would leave 1980 MHz.
    result = simulate("h200", "v2", Problem(1, 2, 512, 64))
    assert result.clock_hz == 1.8e9
    unlimited = simulate(load_arch("h200", {"power.tensor_active_clock_hz": None}), "v2", Problem(1, 2, 512, 64))
    assert unlimited.clock_hz == 1.98e9
    assert result.time_s > unlimited.time_s


def test_a_run_that_issues_mmas_starts_at_the_tensor_active_clock() -> None:
    h200 = load_arch("h200")
    kernels = schedule(h200, "standard", Problem(1, 2, 512, 64), {})
    softmax = [kernel for kernel in kernels if "softmax" in kernel.name]
    assert len(softmax) == 1 and len(kernels) == 3
    assert starting_clock_hz(h200, kernels) == 1.8e9
    assert starting_clock_hz(h200, softmax) == 1.98e9  # no tensor core in it
    # The H100 file's ceiling, 3 MHz under its clock, is within the re-run's tolerance: its runs start at its clock.
    h100 = load_arch("h100")
    assert starting_clock_hz(h100, schedule(h100, "standard", Problem(1, 2, 512, 64), {})) == 1.83e9
