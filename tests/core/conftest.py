"""A toy chip with round numbers, so that engine stories have exact expected cycle counts; and fast mode's L2
replay from its source, for tests that spy on its private functions."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from types import ModuleType

import pytest

from simgpu import native
from simgpu.arch import Arch, load_arch

# 1 GHz (no power-limited clock), HBM 1000 B/cycle for reads and writes alike, L2 so fast it never limits, no
# latencies (memory, loaded, a TMA box's or dependency) or launch gaps, copies that land in smem without taking its
# port, TMA copies and fragment stores limited by nothing of their own, one SM.
TOY = {
    "sms": 1,
    "clock_hz": 1.0e9,
    "power": None,
    "kernel_launch_s": 0.0,
    "sm.cta_launch_cycles": 0,
    "smem.cp_async_write_port_fraction": 0.0,
    "smem.tma_write_port_fraction": 0.0,
    "hbm.bandwidth_bytes_per_s": 1.0e12,
    "hbm.achievable_fraction": 1.0,
    "hbm.write_cost_ratio": 1.0,
    "hbm.latency_cycles": 0,
    "hbm.loaded_latency": None,
    "l2.bandwidth_bytes_per_s": 1.0e18,
    "l2.hit_latency_cycles": 0,
    "l2.capacity_bytes": 0,
    "tma.issue_cycles": 0,
    "tma.bytes_per_cycle": None,
    "tma.hbm_box_extra_cycles": None,
    "sm.fragment_store_cycles": None,
    "latency": None,
}


@pytest.fixture
def toy_hopper() -> Arch:
    return load_arch("h100", TOY)


@pytest.fixture
def toy_blackwell() -> Arch:
    return load_arch("b200", TOY)


@pytest.fixture
def fast_bytes_source() -> Iterator[ModuleType]:
    """`simgpu.fast_bytes` loaded anew from its source: mypyc's compiled module calls its own functions directly,
    so a test that replaces one (`monkeypatch.setattr`) must run this copy. It uses the package's other modules as
    they are; `tests/core/test_native.py` holds the compiled module to the same results."""
    name = "simgpu.fast_bytes_from_source"
    spec = importlib.util.spec_from_file_location(name, native.source("simgpu.fast_bytes"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # where its dataclasses look up their annotations
    spec.loader.exec_module(module)
    yield module
    del sys.modules[name]
