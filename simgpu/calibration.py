"""Turn the measurements of ``simgpu calibrate`` into an arch file: the detected chip with measured values on top.

Input: the dict that ``cupy_kernels.calibrate.runner.measure()`` returns (also its ``calibration.json``):
``{"gpu": {"gpu_name", "driver", "date", ...}, "benchmarks": {name: result}}``, where a rate benchmark's result
holds ``per_s`` (units per second), ``per_sm_per_clk_cycles`` (per SM per cycle, counted by the SM's cycle
counter in the kernel, at ``kernel_clock_mhz`` = those cycles over the kernel's time), ``per_sm_per_clk`` (per
SM per cycle at ``clock_mhz``, the SM clock nvidia-smi sampled while it ran); ``kernel_launch`` holds
``per_launch_s``. Per-cycle keys take the cycle-counter value: under the 700 W cap the clock moves faster than
nvidia-smi samples it (wgmma ran at 1600 MHz by its cycles while nvidia-smi said 1770), and a rate per clock
divided by the wrong clock is wrong by the same factor. Output: a YAML file that
``inherit:``s the chip's shipped arch and overrides only the keys a benchmark measured, each with a
``# measured:`` comment. Values the schema has no key for (``mma.sync`` on a wgmma chip) stay in the JSON only. The
schema is not changed: per-cycle keys get per-SM values at the sampled clock, bandwidths bytes/s,
``hbm.achievable_fraction`` the measured read bandwidth over the base file's datasheet figure and
``hbm.write_cost_ratio`` what the copy's bandwidth says a written byte costs. No GPU is needed here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simgpu.arch import Arch, load_arch
from simgpu.errors import ArchError

# Substring of the device name -> shipped arch file (first match wins; "H200" before "H100" is not needed since
# neither name contains the other, but the order is kept most-specific first for future entries).
CHIP_ARCHS: tuple[tuple[str, str], ...] = (("H200", "h200"), ("H100", "h100"), ("A100", "a100"), ("B200", "b200"))


@dataclass(frozen=True)
class Calibrated:
    """One overridden key: its schema path, the value in schema units, and where the value came from."""

    key: str
    value: float | int
    benchmark: str
    shown: str  # the measurement as a person reads it, e.g. "4.26e+12 bytes/s"
    clock_mhz: float | None  # the clock the kernel ran at (cycle counter), else the sampled one
    sampled_mhz: float | None = None  # nvidia-smi's sample, shown beside a cycle-counter clock


def base_arch_for(gpu_name: str) -> str:
    """The shipped arch a device name belongs to ("NVIDIA H200" -> "h200"); ArchError if none does."""
    for fragment, arch in CHIP_ARCHS:
        if fragment in gpu_name.upper():
            return arch
    known = ", ".join(fragment for fragment, _ in CHIP_ARCHS)
    raise ArchError(f"no shipped arch for GPU {gpu_name!r} (known: {known})")


def calibrated_values(measured: Mapping[str, Any], base: Arch) -> list[Calibrated]:
    """The schema keys the measurements fix, in file order; benchmarks absent from ``measured`` are skipped."""
    benchmarks: Mapping[str, Mapping[str, Any]] = measured["benchmarks"]
    out: list[Calibrated] = []

    def clocks(result: Mapping[str, Any]) -> tuple[float, float | None]:
        if "kernel_clock_mhz" in result:
            return result["kernel_clock_mhz"], result["clock_mhz"]
        return result["clock_mhz"], None

    def per_clock(key: str, name: str, unit: str, as_int: bool = False) -> None:
        if name in benchmarks:
            result = benchmarks[name]
            value = result.get("per_sm_per_clk_cycles", result["per_sm_per_clk"])
            shown = f"{value:.2f} {unit}/clk/SM ({result['per_s']:.4g} {unit}/s)"
            out.append(Calibrated(key, round(value) if as_int else value, name, shown, *clocks(result)))

    if "kernel_launch" in benchmarks:
        launch = benchmarks["kernel_launch"]
        seconds = launch["per_launch_s"]
        shown = f"{seconds * 1e6:.2f} us per launch"
        out.append(Calibrated("kernel_launch_s", seconds, "kernel_launch", shown, launch.get("clock_mhz")))
    # The tensor-core rate of the instruction the arch's schedules use: wgmma on Hopper, mma.sync on Ampere.
    mma_benchmark = {"wgmma": "wgmma_bf16", "mma_sync": "mma_sync_bf16"}.get(base.tensor_core.instruction)
    if mma_benchmark is not None:
        per_clock("tensor_core.flops_per_cycle.bf16", mma_benchmark, "FLOP", as_int=True)
    per_clock("mufu.ex2_per_cycle", "mufu_ex2", "ex2")
    per_clock("fma.fp32_per_cycle", "fp32_fma", "FMA")
    per_clock("smem.bandwidth_bytes_per_cycle", "smem_read", "B")
    # The L2 ceiling is the faster of the two read paths (plain loads; bulk copies into shared memory).
    l2 = [name for name in ("l2_read", "l2_bulk_read") if name in benchmarks]
    if l2:
        name = max(l2, key=lambda n: benchmarks[n]["per_s"])
        result = benchmarks[name]
        shown = f"{result['per_s']:.4g} bytes/s"
        out.append(Calibrated("l2.bandwidth_bytes_per_s", result["per_s"], name, shown, *clocks(result)))
    out += _hbm_values(benchmarks, base, clocks)
    return out


def _hbm_values(
    benchmarks: Mapping[str, Mapping[str, Any]],
    base: Arch,
    clocks: Callable[[Mapping[str, Any]], tuple[float, float | None]],
) -> list[Calibrated]:
    """The HBM's read rate (`hbm.achievable_fraction`) and write cost (`hbm.write_cost_ratio`, `simgpu.units.hbm`).
    With both the read stream and the copy (half its bytes written): the read rate, and the write cost that makes
    the copy's time per byte (1 + cost) / 2 read bytes'. With the copy alone: the read rate that the base arch's
    write cost gives the copy."""
    copy = benchmarks.get("hbm_copy")
    if copy is None:
        return []
    datasheet = base.hbm.bandwidth_bytes_per_s
    read = benchmarks.get("hbm_read")
    cost = base.hbm.write_cost_ratio if read is None else 2.0 * read["per_s"] / copy["per_s"] - 1.0
    read_per_s = copy["per_s"] * (1.0 + cost) / 2.0 if read is None else read["per_s"]
    source = "hbm_copy" if read is None else "hbm_read"
    fraction = read_per_s / datasheet
    if fraction > 1:
        raise ArchError(
            f"{source} gives reads at {read_per_s:.4g} bytes/s, above the {datasheet:.4g} bytes/s datasheet "
            "bandwidth of the base arch: fix hbm.bandwidth_bytes_per_s there first"
        )
    shown = f"{read_per_s:.4g} bytes/s of reads = {fraction:.4f} x {datasheet:.4g} datasheet"
    values = [Calibrated("hbm.achievable_fraction", fraction, source, shown, *clocks(read or copy))]
    if read is not None:
        shown = f"copy {copy['per_s']:.4g} bytes/s read+write, reads {read_per_s:.4g}: a written byte {cost:.4f} reads"
        values.append(Calibrated("hbm.write_cost_ratio", cost, "hbm_copy", shown, *clocks(copy)))
    return values


def write_calibrated_arch(measured: Mapping[str, Any], base: str, path: str | Path) -> Path:
    """Write an arch file that inherits ``base`` and overrides every measured key; return its path.

    The file is loaded back with ``load_arch`` before returning, so a value out of the schema's range raises
    ArchError here rather than when someone uses the file.
    """
    path = Path(path)
    values = calibrated_values(measured, load_arch(base))
    gpu = measured.get("gpu", {})
    date = gpu.get("date", "unknown date")
    lines = [
        f"# {gpu.get('gpu_name', 'GPU')} calibrated by `simgpu calibrate` (cupy_kernels/calibrate) on {date};",
        f"# driver {gpu.get('driver', '?')}, power limit {gpu.get('power_limit_w', '?')} W, clocks left as found.",
        "# Per-cycle values are per SM, counted by the SM cycle counter in the kernel; the MHz below is the clock",
        "# the kernel ran at (its cycles over its time), with nvidia-smi's sample beside it (kernel_launch: the",
        "# sample alone). Every other key is inherited. All raw numbers: calibration.json.",
        f"inherit: {base}",
    ]
    tree: dict[str, Any] = {}
    for item in values:
        *sections, leaf = item.key.split(".")
        node = tree
        for section in sections:
            node = node.setdefault(section, {})
        node[leaf] = item
    lines += _emit(tree, indent=0, date=date)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    load_arch(path)
    return path


def _emit(tree: Mapping[str, Any], indent: int, date: str) -> list[str]:
    lines = []
    pad = "  " * indent
    for key, node in tree.items():
        if isinstance(node, Calibrated):
            clock = "" if node.clock_mhz is None else f" at {node.clock_mhz:.0f} MHz"
            sampled = "" if node.sampled_mhz is None else f" (cycle counter; nvidia-smi sampled {node.sampled_mhz:.0f})"
            lines.append(
                f"{pad}{key}: {_scalar(node.value)}  # measured: {node.benchmark}, {node.shown}{clock}, {date}{sampled}"
            )
        else:
            lines.append(f"{pad}{key}:")
            lines += _emit(node, indent + 1, date)
    return lines


def _scalar(value: float | int) -> str:
    """YAML text that reads back as the same type: PyYAML takes a float only with a '.' in it (4e-06 is a str)."""
    if isinstance(value, int):
        return str(value)
    text = f"{value:.4g}"
    mantissa, e, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return f"{mantissa}{e}{exponent}"
