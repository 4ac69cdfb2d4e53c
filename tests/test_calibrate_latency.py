"""The latency microbenchmarks (``cupy_kernels/calibrate/latency``).

Without a GPU: every kernel the measurement launches compiles with nvcc for sm_90a without register spills or
serialized wgmma, and the latency bound of the hiding curves has the right shape. With CuPy and a GPU: a whole
measurement gives plausible latencies and rates and writes its JSON.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from cupy_kernels.calibrate import latency

NVCC = shutil.which("nvcc")


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
def test_latency_kernels_compile_without_spills_or_serialized_wgmma() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        wrapper = Path(tmp) / "instantiate.cu"
        wrapper.write_text(latency.instantiation_source())
        cmd = [NVCC, "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a", "-cubin", "-Xptxas", "-v",
               "-diag-suppress", "177", "-o", str(Path(tmp) / "out.cubin"), str(wrapper)]  # fmt: skip
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    entries = re.findall(r"Compiling entry function '(\w+)'", report)
    for base in ("alu_chain", "mma_chain", "smem_chain", "wgmma_chain", "bar_chain", "mbarrier_chain", "cp_async"):
        assert any(base in entry for entry in entries), (base, report)
    # The included compute.cu brings its two plain kernels along: every entry, those too, must be spill-free.
    spills = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", report)
    assert len(spills) == len(entries) and all(s == ("0", "0") for s in spills), report
    assert "serialized" not in report, report  # ptxas warns when it must serialize wgmma instructions


def test_every_launched_kernel_is_listed_once() -> None:
    names = latency.kernel_names()
    assert len(names) == len(set(names))
    assert {"alu_chain<2, 1>", "alu_chain<2, 4>", "mma_chain<1>", "mma_chain<4>"} <= set(names)
    assert {chain.kernel for chain in latency.LATENCIES} <= set(names)


def test_latency_bound_is_littles_law_capped_by_the_occupied_schedulers() -> None:
    # ex2: 16 lanes/clk/SM is 1 warp instruction per 8 cycles per scheduler. With a 20-cycle latency one chain of
    # one warp gives 32 / 20 lanes/clk; 4 chains would give 6.4 but one scheduler caps it at 4.
    assert latency.latency_bound("ex2", 1, 1, 20.0) == pytest.approx(1.6)
    assert latency.latency_bound("ex2", 1, 4, 20.0) == pytest.approx(4.0)
    assert latency.latency_bound("ex2", 16, 4, 20.0) == pytest.approx(16.0)
    assert latency.latency_bound("mma", 2, 1, 32.0) == pytest.approx(2 * 4096 / 32)


def gpu_available() -> bool:
    try:
        import cupy

        return bool(cupy.cuda.runtime.getDeviceCount() > 0)
    except Exception:  # no CuPy, no driver, or no device
        return False


@pytest.mark.skipif(not gpu_available(), reason="needs CuPy and a GPU")
def test_latency_measurement_on_the_gpu(tmp_path: Path) -> None:
    measured = latency.main(str(tmp_path))
    for name, result in measured["latency"].items():
        assert 1.0 < result["cycles"] < 5000.0, name
    for op, rows in measured["hiding"].items():
        for row in rows:
            assert 0.0 < row["of_peak"] < 1.1, (op, row)
        # More warps never lower the throughput much (the curve rises to the unit's rate).
        one_chain = [row["per_sm_per_clk"] for row in rows if row["chains"] == 1]
        assert one_chain[-1] > 2 * one_chain[0], op
    assert json.loads((tmp_path / "latency_h200.json").read_text())["latency"].keys() == measured["latency"].keys()
