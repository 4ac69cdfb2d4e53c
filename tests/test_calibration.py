"""`simgpu calibrate`: the arch file written from measurements, and the microbenchmarks' sources.

Without a GPU: ``write_calibrated_arch`` on a made-up measurement gives a file ``load_arch`` accepts, with exactly
the measured keys overridden (in schema units) and everything else inherited; every calibration kernel the
runner launches compiles with nvcc for sm_90a without register spills or serialized wgmma; the L2 copy fills one
wave; the GEMM check passes a correct product and refuses a transposed one. With CuPy and a GPU: a quick
calibration run gives positive rates whose per-clock values agree with the kernels' cycle counters.
"""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cupy_kernels import common
from cupy_kernels.calibrate import gemm, runner
from simgpu.arch import load_arch
from simgpu.calibration import base_arch_for, write_calibrated_arch
from simgpu.errors import ArchError

NVCC = shutil.which("nvcc")


def rate(per_s: float, per_sm_per_clk: float, kernel_mhz: float = 1755.0) -> dict[str, Any]:
    """A rate result as the runner writes it; nvidia-smi's sample is 200 MHz high, as under the power cap."""
    sampled = kernel_mhz + 200.0
    return {
        "per_s": per_s,
        "per_sm_per_clk_cycles": per_sm_per_clk,
        "kernel_clock_mhz": kernel_mhz,
        "per_sm_per_clk": per_sm_per_clk * kernel_mhz / sampled,
        "clock_mhz": sampled,
    }


def fake_measured() -> dict[str, Any]:
    """What `runner.measure()` returns, trimmed to the fields `write_calibrated_arch` reads."""
    return {
        "gpu": {"gpu_name": "NVIDIA H200", "driver": "580.159.04", "power_limit_w": "700.00", "date": "2026-11-29"},
        "benchmarks": {
            "hbm_read": rate(4.3e12, 16.0),
            "hbm_copy": rate(4.2e12, 15.6),
            "l2_read": rate(7.5e12, 30.0),
            "l2_bulk_read": rate(9.0e12, 36.0),
            "smem_read": rate(3.0e13, 126.5),
            "mufu_ex2": rate(4.1e12, 15.9),
            "fp32_fma": rate(3.3e13, 127.4),
            "mma_sync_bf16": rate(6.0e14, 2600.0),
            "wgmma_bf16": rate(9.1e14, 3911.6),
            "kernel_launch": {"per_launch_s": 2e-6, "host_bound_s": 6e-6, "clock_mhz": 1980.0},
        },
    }


def test_calibrated_arch_overrides_the_measured_keys_and_inherits_the_rest(tmp_path: Path) -> None:
    path = write_calibrated_arch(fake_measured(), "h200", tmp_path / "deep" / "local-h200.yaml")
    arch, base = load_arch(path), load_arch("h200")
    assert arch.tensor_core.flops_per_cycle["bf16"] == 3912  # wgmma, the instruction h200's schedules use
    assert arch.tensor_core.flops_per_cycle["fp16"] == base.tensor_core.flops_per_cycle["fp16"]
    assert arch.mufu.ex2_per_cycle == pytest.approx(15.9)
    assert arch.fma.fp32_per_cycle == pytest.approx(127.4)
    assert arch.smem.bandwidth_bytes_per_cycle == pytest.approx(126.5)
    assert arch.l2.bandwidth_bytes_per_s == pytest.approx(9.0e12)  # the faster L2 path
    assert arch.hbm.achievable_fraction == pytest.approx(4.3e12 / 4.8e12, rel=1e-3)  # the read stream
    # The copy moves a read and a written byte in 2 x 4.3 / 4.2 read bytes' time: a written byte costs 1.0476.
    assert arch.hbm.write_cost_ratio == pytest.approx(2 * 4.3 / 4.2 - 1, rel=1e-3)
    assert arch.kernel_launch_s == pytest.approx(2e-6)
    changed = {"tensor_core", "mufu", "fma", "smem", "l2", "hbm", "kernel_launch_s"}
    assert {k: v for k, v in arch.model_dump().items() if k not in changed} == {
        k: v for k, v in base.model_dump().items() if k not in changed
    }
    assert arch.l2.capacity_bytes == base.l2.capacity_bytes
    overridden = [line for line in path.read_text().splitlines() if ":" in line and not line.startswith("#")]
    values = [line for line in overridden if not line.rstrip().endswith(":") and not line.startswith("inherit")]
    assert len(values) == 8
    assert all(re.search(r"# measured: \w+, .* MHz, 2026-11-29", line) for line in values), values
    assert (
        "# measured: smem_read, 126.50 B/clk/SM (3e+13 B/s) at 1755 MHz, 2026-11-29 (cycle counter; nvidia-smi "
        "sampled 1955)" in path.read_text()
    )


def test_mma_sync_rate_calibrates_an_mma_sync_arch(tmp_path: Path) -> None:
    measured = fake_measured()
    measured["benchmarks"] = {k: v for k, v in measured["benchmarks"].items() if k != "hbm_copy"}
    arch = load_arch(write_calibrated_arch(measured, "a100", tmp_path / "a.yaml"))
    assert arch.tensor_core.flops_per_cycle["bf16"] == 2600
    assert arch.hbm.achievable_fraction == load_arch("a100").hbm.achievable_fraction


def test_reads_faster_than_the_datasheet_are_refused(tmp_path: Path) -> None:
    measured = fake_measured()
    measured["benchmarks"]["hbm_read"] = rate(5.0e12, 18.0)
    with pytest.raises(ArchError, match=r"hbm_read gives reads at 5e\+12 bytes/s, above the 4\.8e\+12 bytes/s"):
        write_calibrated_arch(measured, "h200", tmp_path / "x.yaml")


def test_base_arch_is_detected_from_the_device_name() -> None:
    assert base_arch_for("NVIDIA H200") == "h200"
    assert base_arch_for("NVIDIA H100 80GB HBM3") == "h100"
    assert base_arch_for("NVIDIA A100-SXM4-80GB") == "a100"
    with pytest.raises(ArchError, match="no shipped arch"):
        base_arch_for("Tesla T4")


def compile_report(source: Path, names: list[str]) -> str:
    """ptxas -v report of `source` with `names` instantiated (taking a kernel's address instantiates it)."""
    with tempfile.TemporaryDirectory() as tmp:
        wrapper = Path(tmp) / "instantiate.cu"
        lines = [f'#include "{source}"']
        lines += [f"static void* const kernel_{i} = (void*)&{name};" for i, name in enumerate(names)]
        wrapper.write_text("\n".join(lines) + "\n")
        cmd = [NVCC, "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a", "-cubin", "-Xptxas", "-v",
               "-diag-suppress", "177", "-o", str(Path(tmp) / "out.cubin"), str(wrapper)]  # fmt: skip
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    return report


@cache
def all_reports() -> dict[Path, str]:
    """The three sources compiled in parallel (about 5 s on two cores, wgmma.cu the longest)."""
    batches = runner.kernel_names()
    with ThreadPoolExecutor(max_workers=len(batches)) as pool:
        futures = {path: pool.submit(compile_report, path, names) for path, names in batches.items()}
        return {path: future.result() for path, future in futures.items()}


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
@pytest.mark.parametrize("source", ["memory.cu", "compute.cu", "wgmma.cu"])
def test_every_calibration_kernel_compiles_without_spills(source: str) -> None:
    path = runner.HERE / source
    report = all_reports()[path]
    entries = re.findall(r"Compiling entry function '(\w+)'", report)
    spills = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", report)
    assert len(entries) == len(spills) == len(runner.kernel_names()[path]), report
    assert all(stores == "0" and loads == "0" for stores, loads in spills), report
    assert "serialized" not in report, report  # ptxas warns when it must serialize wgmma instructions


def test_l2_copy_is_one_wave_of_whole_tiles_on_an_h200() -> None:
    tile_bytes = 16 * runner.LOAD_UNROLL * runner.LOAD_THREADS
    ctas, rest = divmod(runner.L2_COPY_MIB * 2**20, tile_bytes)
    assert (ctas, rest) == (512, 0)
    assert ctas <= 132 * runner.LOAD_CTAS_PER_SM  # 528 CTA slots: every CTA starts at once


def test_gemm_check_passes_a_bf16_product_and_refuses_a_transposed_one() -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((gemm.CHECK_BLOCK, 1024))  # (rows, K)
    b = rng.standard_normal((1024, gemm.CHECK_BLOCK))  # (K, cols)
    product = common.to_float32(common.to_bf16_bits(a @ b)).astype(np.float64)  # rounded to a bf16 output
    check = gemm.check_block(a, b, product)
    assert 0 < check["max_error_over_rms"] < 0.02  # bf16 rounding: at most 2^-8 of a value of ~4 RMS
    with pytest.raises(RuntimeError, match="GEMM check failed"):
        gemm.check_block(a, b, product.T)
    with pytest.raises(RuntimeError, match="GEMM check failed"):
        gemm.check_block(a, b, np.full_like(product, np.nan))  # an output the GEMM never wrote
    assert gemm.block_origin(8192) == (2048, 4096)  # off the diagonal: C and C^T differ there


def gpu_available() -> bool:
    try:
        import cupy

        return bool(cupy.cuda.runtime.getDeviceCount() > 0)
    except Exception:  # no CuPy, no driver, or no device
        return False


@pytest.mark.skipif(not gpu_available(), reason="needs CuPy and a GPU")
def test_quick_calibration_on_the_gpu(tmp_path: Path) -> None:
    measured = runner.main(str(tmp_path), quick=True)
    for name, result in measured["benchmarks"].items():
        if name == "kernel_launch":
            assert 0 < result["per_launch_s"] < 1e-4
            continue
        if "skipped" in result:  # fp8 without torch
            continue
        assert result["per_s"] > 0, name
        if "per_sm_per_clk_cycles" not in result:  # vendor code (cuBLAS, cupy.copyto): no cycle counter
            assert result["runs"] >= 1, name
            continue
        # the kernel's clock (its cycles over its time) lies between idle and the maximum boost clock
        assert 300 < result["kernel_clock_mhz"] < 2100, name
    assert (tmp_path / "calibration.json").is_file()
    load_arch(tmp_path / "calibration.yaml")


def test_a_copy_alone_gives_the_read_rate_the_base_write_cost_implies(tmp_path: Path) -> None:
    measured = fake_measured()
    del measured["benchmarks"]["hbm_read"]
    arch = load_arch(write_calibrated_arch(measured, "h200", tmp_path / "copy.yaml"))
    cost = load_arch("h200").hbm.write_cost_ratio
    assert arch.hbm.write_cost_ratio == cost  # inherited
    assert arch.hbm.achievable_fraction == pytest.approx(4.2e12 * (1 + cost) / 2 / 4.8e12, rel=1e-3)


def test_probe_rows_are_written_as_csv_gzipped_where_the_name_says(tmp_path: Path) -> None:
    rows = [{"sm": 3, "entry": 120, "exit": 9050}, {"sm": 4, "entry": 118, "exit": 8990}]
    common.write_rows(tmp_path / "probe" / "ctas.csv.gz", rows)
    common.write_rows(tmp_path / "ctas.csv", rows)
    text = b"sm,entry,exit\r\n3,120,9050\r\n4,118,8990\r\n"
    assert gzip.decompress((tmp_path / "probe" / "ctas.csv.gz").read_bytes()) == text
    assert (tmp_path / "ctas.csv").read_bytes() == text


def test_co_resident_ctas_tell_whether_an_sms_first_ctas_end_together() -> None:
    # SM 0: two CTAs start together (within 2,000 cycles) and end at 800 and 1,000 of a round from 0: spread 0.2;
    # its third enters at 2,500, 1,700 cycles after the first exit. SM 1: two that end together (0), no third.
    rows = [
        {"sm": 0, "entry": 0, "exit": 800},
        {"sm": 0, "entry": 10, "exit": 1000},
        {"sm": 0, "entry": 2500, "exit": 3500},
        {"sm": 1, "entry": 0, "exit": 1000},
        {"sm": 1, "entry": 0, "exit": 1000},
    ]
    summary = common.co_resident_ctas(rows)
    assert summary == {
        "sms": 2,
        "ctas_started_together": 2.0,
        "exit_spread_of_round": 0.1,
        "next_entry_after_first_exit": 1700.0,
    }
