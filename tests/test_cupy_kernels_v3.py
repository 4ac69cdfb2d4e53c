"""The v3 (FlashAttention-3) forward kernel: every instantiation the launcher can use compiles with nvcc for sm_90a
cleanly (no spills, no serialized wgmma, setmaxnreg honoured), the launch configurations are validated, and (on a
machine with CuPy and a GPU) every variant matches ``algorithms.reference`` on small random inputs under
FlashAttention's tolerance rule (``cupy_kernels.selfcheck.compare``).

The nvcc test needs only ``nvcc`` (skipped when it is absent) and compiles the 16 instantiations in one process,
a few seconds.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

import pytest

from cupy_kernels import common
from cupy_kernels.v3 import launch

NVCC = shutil.which("nvcc")
FLAGS = (False, True)
VARIANTS = [(causal, pingpong, overlap) for causal in FLAGS for pingpong in FLAGS for overlap in FLAGS]


def instantiations() -> list[str]:
    return [launch.kernel_name(d, launch.fwd_config(d), *variant) for d in (64, 128) for variant in VARIANTS]


@cache
def compile_report(prefix: str = "", names: tuple[str, ...] | None = None) -> str:
    """ptxas -v report of fwd.cu (after `prefix` lines) with `names` instantiated (default: every instantiation;
    taking a kernel's address instantiates it)."""
    with tempfile.TemporaryDirectory() as tmp:
        wrapper = Path(tmp) / "instantiate.cu"
        lines = [prefix, f'#include "{launch.SOURCE}"']
        chosen = instantiations() if names is None else list(names)
        lines += [f"static void* const kernel_{i} = (void*)&{name};" for i, name in enumerate(chosen)]
        wrapper.write_text("\n".join(lines) + "\n")
        cmd = [NVCC, "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a", "-cubin", "-Xptxas", "-v",
               "-diag-suppress", "177", "-o", str(Path(tmp) / "out.cubin"), str(wrapper)]  # fmt: skip
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    return report


def assert_clean(report: str, kernels: int) -> None:
    """ptxas reported each of the `kernels` kernels without spills, and nothing warned."""
    spills = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", report)
    assert len(spills) == kernels and all(s == ("0", "0") for s in spills), report
    assert "warning" not in report.lower(), report


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
def test_every_instantiation_compiles_cleanly() -> None:
    report = compile_report()
    entries = re.findall(r"Compiling entry function '(\w+)'", report)
    assert len(entries) == len(instantiations()) == 16, report
    # ptxas warns when it serializes wgmma (e.g. accumulators touched while in flight) and, as C7508, when it
    # ignores setmaxnreg; neither may happen, nor any other warning.
    assert_clean(report, 16)
    # The entry register count is the cap of __launch_bounds__(384, 1): 65536 / 384 rounded down to 8.
    assert re.findall(r"Used (\d+) registers", report) == ["168"] * 16, report


def test_source_expands_its_includes() -> None:
    text = common.load_source(launch.SOURCE)
    assert "#include" not in text
    assert text.count("void wgmma_ss_n128(") == 1 and text.count("__device__ __forceinline__ float exp2_approx") == 1


def test_default_config_and_names() -> None:
    assert launch.fwd_config(64) == common.TileConfig(block_m=128, block_n=128, warps=12, stages=2)
    config = launch.fwd_config(128, stages=3)
    assert launch.kernel_name(128, config, True, False, True) == "fa3_fwd<128,3,true,false,true>"
    assert launch.smem_bytes(128, config) == 1024 + (128 + 2 * 3 * 128) * 128 * 2


@pytest.mark.parametrize(
    "kwargs",
    [{"block_m": 64}, {"block_n": 176}, {"stages": 1}, {"stages": 4}],  # stages 4 at d = 128: 289 KiB of smem
)
def test_bad_launch_configs_raise_value_error(kwargs) -> None:
    with pytest.raises(ValueError):
        launch.fwd_config(128, **kwargs)


def test_unsupported_headdim_raises_value_error() -> None:
    with pytest.raises(ValueError, match="headdim"):
        launch.fwd_config(96)


# ---------------------------------------------------------------------------------------------------------
# On a GPU (compute capability 9.0: sm_90a code runs nowhere else)
# ---------------------------------------------------------------------------------------------------------


def hopper_available() -> bool:
    if common.cp is None:
        return False
    try:
        return common.cp.cuda.runtime.getDeviceCount() > 0 and common.cp.cuda.Device(0).compute_capability == "90"
    except common.cp.cuda.runtime.CUDARuntimeError:
        return False


hopper = pytest.mark.skipif(not hopper_available(), reason="needs CuPy and a compute capability 9.0 GPU")


@hopper
@pytest.mark.parametrize("headdim", [64, 128])
@pytest.mark.parametrize(("causal", "pingpong", "overlap"), VARIANTS)
def test_forward_matches_reference(causal: bool, pingpong: bool, overlap: bool, headdim: int) -> None:
    from algorithms import reference
    from cupy_kernels import selfcheck

    cp = common.cp
    shape = (2, 2, 300, headdim)  # partial last tiles of Q and K/V
    q, k, v = (common.random_tensor(shape, "bf16", seed) for seed in (11, 12, 13))
    qh, kh, vh = (selfcheck.host(x) for x in (q, k, v))
    o, lse = cp.empty_like(q), cp.empty(shape[:3], dtype=cp.float32)
    common.poison(o, lse)
    launch.forward(q, k, v, causal=causal, pingpong=pingpong, intra_wg_overlap=overlap, out=(o, lse))
    ref_o, ref_lse = reference.forward(qh, kh, vh, causal=causal)
    base_o, base_lse = selfcheck.baseline_forward(qh, kh, vh, causal, headdim**-0.5, "bf16")
    assert selfcheck.compare(selfcheck.host(o), ref_o, base_o)["ok"]
    assert selfcheck.compare(selfcheck.host(lse), ref_lse, base_lse)["ok"]


@hopper
def test_launcher_rejects_bad_inputs() -> None:
    q = common.random_tensor((1, 1, 16, 64), "bf16", 0)
    with pytest.raises(ValueError, match="bf16"):
        launch.forward(*(common.random_tensor((1, 1, 16, 64), "fp16", i) for i in range(3)))
    with pytest.raises(ValueError, match="block_n"):
        launch.forward(q, q, q, block_n=64)
    with pytest.raises(ValueError, match="scale"):
        launch.forward(q, q, q, scale=-1.0)
    with pytest.raises(ValueError, match="shape"):
        launch.forward(q, q[:, :, :8].copy(), q)


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
def test_the_phase_traced_build_compiles_cleanly() -> None:
    # validation/probes/v3_phases.py compiles fwd.cu with FA3_PHASE_TRACE: the non-causal variants it times.
    prefix = "\n".join(f"#define {k} {v}" for k, v in (("FA3_PHASE_TRACE", ""), ("FA3_TRACE_X", 3),
                                                       ("FA3_TRACE_Y", 40), ("FA3_TRACE_BLOCKS", 128)))  # fmt: skip
    names = tuple(launch.kernel_name(d, launch.fwd_config(d), False, pp, ov) for d in (64, 128) for pp in FLAGS
                  for ov in FLAGS)  # fmt: skip
    report = compile_report(prefix, names)
    assert_clean(report, 8)


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
def test_the_cta_traced_build_compiles_cleanly() -> None:
    # validation/probes/v3_cta_timeline.py compiles fwd.cu with FA3_CTA_TRACE: the default variant at both d.
    prefix = "#define FA3_CTA_TRACE\n#define FA3_TRACE_CTAS 8192"
    names = tuple(launch.kernel_name(d, launch.fwd_config(d), False, True, True) for d in (64, 128))
    report = compile_report(prefix, names)
    assert_clean(report, 2)


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
def test_the_ablated_build_compiles_cleanly() -> None:
    # validation/probes/v3_ablate.py compiles fwd.cu with FA3_ABLATE masks: every branch at once (127), non-causal.
    names = tuple(launch.kernel_name(d, launch.fwd_config(d), False, pp, ov) for d in (64, 128) for pp in FLAGS
                  for ov in FLAGS)  # fmt: skip
    report = compile_report("#define FA3_ABLATE 127", names)
    assert_clean(report, 8)


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
def test_the_index_order_build_compiles_cleanly() -> None:
    # validation/probes/v3_lpt.py compiles fwd.cu with FA3_CAUSAL_INDEX_ORDER: causal, ping-pong and overlap on.
    names = tuple(launch.kernel_name(d, launch.fwd_config(d), True, True, True) for d in (64, 128))
    assert_clean(compile_report("#define FA3_CAUSAL_INDEX_ORDER", names), 2)


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
def test_the_phase_offset_build_compiles_cleanly() -> None:
    # validation/probes/v3_phase_offset.py compiles fwd.cu with FA3_CONSUMER1_DELAY: the non-causal variants it times.
    names = tuple(launch.kernel_name(d, launch.fwd_config(d), False, pp, ov) for d in (64, 128) for pp in FLAGS
                  for ov in FLAGS)  # fmt: skip
    assert_clean(compile_report("#define FA3_CONSUMER1_DELAY 512", names), 8)


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
def test_the_offset_traced_build_compiles_cleanly() -> None:
    # validation/probes/v3_offset_trace.py compiles fwd.cu with FA3_PHASE_TRACE and FA3_CONSUMER1_DELAY together.
    prefix = "\n".join(f"#define {k} {v}" for k, v in (("FA3_PHASE_TRACE", ""), ("FA3_TRACE_X", 3),
                                                       ("FA3_TRACE_Y", 20), ("FA3_TRACE_BLOCKS", 128),
                                                       ("FA3_CONSUMER1_DELAY", 512)))  # fmt: skip
    names = tuple(launch.kernel_name(d, launch.fwd_config(d), False, pp, ov) for d in (64, 128)
                  for pp, ov in ((False, True), (False, False), (True, True)))  # fmt: skip
    assert_clean(compile_report(prefix, names), 6)
