"""The tensor-core / MUFU overlap microbenchmark (``cupy_kernels/calibrate/overlap``).

Without a GPU: the kernel compiles with nvcc for sm_90a without register spills or serialized wgmma, and the
record analysis turns warp cycle stamps into the right per-unit rates. With CuPy and a GPU: a whole measurement
gives positive rates for every configuration and writes its JSON.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

from cupy_kernels.calibrate import overlap

NVCC = shutil.which("nvcc")


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
def test_overlap_kernel_compiles_without_spills_or_serialized_wgmma() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        wrapper = Path(tmp) / "instantiate.cu"
        wrapper.write_text(f'#include "{overlap.SOURCE}"\nstatic void* const kernel = (void*)&{overlap.KERNEL};\n')
        cmd = [NVCC, "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a", "-cubin", "-Xptxas", "-v",
               "-diag-suppress", "177", "-o", str(Path(tmp) / "out.cubin"), str(wrapper)]  # fmt: skip
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    # The included compute.cu brings its two plain kernels along; every entry must be spill-free.
    assert re.search(rf"Compiling entry function '_Z\d+{overlap.KERNEL}", report), report
    spills = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", report)
    assert spills and all(stores == "0" and loads == "0" for stores, loads in spills), report
    assert "serialized" not in report, report  # ptxas warns when it must serialize wgmma instructions


def test_analyse_gives_each_unit_its_work_over_its_span() -> None:
    # 2 SMs, roles ss + ex2: tensor warps run cycles 100..1100 (10 iterations), ALU warps 100..2100 (50).
    records = np.zeros((2, overlap.MAX_WARPS, overlap.RECORD_WORDS), dtype=np.uint64)
    records[:, 0:4] = (100, 1100, 10)
    records[:, 4:8] = (100, 2100, 50)
    result = overlap.analyse(records, ("ss", "ex2"))
    assert result["cycles"] == 2000
    assert result["tensor"]["per_sm_per_clk"] == pytest.approx(4 * 10 * overlap.WGMMA_PER_WARP_ITER / 1000)
    assert result["alu"]["per_sm_per_clk"] == pytest.approx(4 * 50 * 8192 / 2000)
    assert result["alu"]["unit"] == "ex2"
    records[1, 5, 1] = 0  # a warp that never wrote its record
    with pytest.raises(RuntimeError, match="left no record"):
        overlap.analyse(records, ("ss", "ex2"))


def test_compare_reads_perfect_overlap_and_turn_taking() -> None:
    alone = {
        "ss": {"cycles": 1000.0, "tensor": {"per_sm_per_clk": 4096.0}},
        "ex2": {"cycles": 1000.0, "alu": {"per_sm_per_clk": 16.0}},
    }
    both = {
        "roles": ["ss", "ex2"],
        "fill": False,
        "tensor": {"per_sm_per_clk": 4096.0},
        "alu": {"per_sm_per_clk": 16.0},
    }
    perfect = overlap.compare({**both, "cycles": 1000.0}, alone)
    assert perfect["rate_sum"] == pytest.approx(2.0) and perfect["hidden"] == pytest.approx(1.0)
    turns = overlap.compare(
        {**both, "cycles": 2000.0, "tensor": {"per_sm_per_clk": 2048.0}, "alu": {"per_sm_per_clk": 8.0}}, alone
    )
    assert turns["rate_sum"] == pytest.approx(1.0) and turns["hidden"] == pytest.approx(0.0)
    assert turns["over_sum"] == pytest.approx(1.0)
    assert "hidden" not in overlap.compare({**both, "cycles": 1000.0, "fill": True}, alone)


def gpu_available() -> bool:
    try:
        import cupy

        return bool(cupy.cuda.runtime.getDeviceCount() > 0)
    except Exception:  # no CuPy, no driver, or no device
        return False


@pytest.mark.skipif(not gpu_available(), reason="needs CuPy and a GPU")
def test_overlap_measurement_on_the_gpu(tmp_path: Path) -> None:
    measured = overlap.main(str(tmp_path))
    for group in ("alone", "together", "together_fill"):
        for name, result in measured[group].items():
            assert 300 < result["clock_mhz"] < 2100, name  # the counted clock: between idle and max boost
            for unit in ("tensor", "alu"):
                assert result.get(unit, {"per_sm_per_clk": 1.0})["per_sm_per_clk"] > 0, name
    assert json.loads((tmp_path / "overlap_h200.json").read_text())["alone"].keys() == measured["alone"].keys()
