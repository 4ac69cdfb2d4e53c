"""Compare the measurements of ``simgpu calibrate`` with a ceilings file: which reference figures it reproduces.

A ceilings file (``validation/h200/ceilings.json``, a copy of ``../shared/reference/h200_ceilings.json``) holds
reference rates of one GPU measured elsewhere (torch copies and matrix products, CuPy loops), in the units its
key names: ``*_TBps`` in 10^12 bytes/s, ``*_TFLOPs`` in 10^12 FLOP/s, ``*_per_s`` per second, and
``*_per_sm_per_clk_at_1980MHz`` per SM per clock (the reference's rate per second over 132 SMs at 1980 MHz).
``CEILING_SOURCES`` maps each key to the calibration result and field that measures the same quantity; per-clock
keys take our SM cycle counter's figure (``per_sm_per_clk_cycles``), since dividing by an assumed clock is what
they would check. A key whose result is absent, or was skipped, is "not measured": never a number. Numeric keys
the map does not know are listed as not measured too; the descriptive keys (``FACT_KEYS``) are ignored.
Pure Python: no GPU, no I/O beyond the CSV writer.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TOLERANCE = 0.10  # issue 5: "within 10%"
FACT_KEYS = frozenset({"name", "sms", "l2_bytes", "nvrtc_sm90a_ok"})  # descriptions of the GPU, not ceilings
CSV_COLUMNS = ("key", "reference", "measured", "measured_over_reference", "within_10pct", "measurement")


@dataclass(frozen=True)
class CeilingSource:
    """Where a ceiling key's measured value comes from: ``benchmarks[benchmark][field] / scale``, or from the
    entry of the result's ``variants`` named ``variant`` when the reference was timed as that variant is."""

    key: str
    benchmark: str
    field: str
    scale: float  # the field's units per unit of the key (1e12 for TB/s and TFLOP/s)
    variant: str | None = None


# The reference's 16 MiB L2-resident copy, 1.80 TB/s read + write, is 18.6 us per copy: a single call timed on its
# own (the H200 ran our back-to-back copies in 6.7 us each and a single call, host included, in 19.4 us:
# validation/h200/calibrate_2026-12-02/calibration.json). So it is compared with the one-copy-per-call variant; the
# result's own figure stays the back-to-back one, the GPU's. Chosen after that run, which is where the two methods
# were first seen to differ 2.9x; both are in the CSV's measurement column.
L2_COPY_REFERENCE_VARIANT = "cupy.copyto, one copy per call"


CEILING_SOURCES: tuple[CeilingSource, ...] = (
    CeilingSource("hbm_copy_TBps", "hbm_copy", "per_s", 1e12),
    CeilingSource("hbm_read_TBps", "hbm_read", "per_s", 1e12),
    CeilingSource("l2_copy_TBps", "l2_copy", "per_s", 1e12, L2_COPY_REFERENCE_VARIANT),
    CeilingSource("bf16_mm_TFLOPs", "gemm_bf16", "per_s", 1e12),
    CeilingSource("fp16_mm_TFLOPs", "gemm_fp16", "per_s", 1e12),
    CeilingSource("fp8_mm_TFLOPs", "gemm_fp8", "per_s", 1e12),
    CeilingSource("mufu_ex2_per_s", "mufu_ex2", "per_s", 1.0),
    CeilingSource("mufu_ex2_per_sm_per_clk_at_1980MHz", "mufu_ex2", "per_sm_per_clk_cycles", 1.0),
    CeilingSource("fp32_fma_per_s", "fp32_fma", "per_s", 1.0),
    CeilingSource("fp32_fma_per_sm_per_clk_at_1980MHz", "fp32_fma", "per_sm_per_clk_cycles", 1.0),
    CeilingSource("smem_bytes_per_s", "smem_read", "per_s", 1.0),
    CeilingSource("smem_bytes_per_sm_per_clk_at_1980MHz", "smem_read", "per_sm_per_clk_cycles", 1.0),
)


@dataclass(frozen=True)
class CeilingRow:
    """One ceiling: the reference, the measured value in the same units (None: not measured) and what measured
    it (or why nothing did)."""

    key: str
    reference: float
    measured: float | None
    measurement: str

    @property
    def ratio(self) -> float | None:
        return None if self.measured is None else self.measured / self.reference

    def within(self, tolerance: float = TOLERANCE) -> bool | None:
        """Whether measured lies within ``tolerance`` of the reference (relative); None when not measured."""
        ratio = self.ratio
        return None if ratio is None else abs(ratio - 1.0) <= tolerance


def compare_ceilings(measured: Mapping[str, Any], ceilings: Mapping[str, Any]) -> list[CeilingRow]:
    """One row per ceiling key of ``ceilings`` (the mapped keys in ``CEILING_SOURCES`` order, then any other
    numeric key in file order), from ``measured`` (``runner.measure()``'s dict, or its calibration.json).

    ValueError when ``ceilings`` is not a mapping of keys to positive numbers (facts aside) or holds none, or
    ``measured`` has no ``benchmarks`` mapping."""
    benchmarks = measured.get("benchmarks")
    if not isinstance(benchmarks, Mapping):
        raise ValueError("calibration data must hold 'benchmarks' (a mapping)")
    references: dict[str, float] = {}
    for key, value in ceilings.items():
        if key in FACT_KEYS:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"ceilings: {key} must be a number, got {value!r}")
        if value <= 0:
            raise ValueError(f"ceilings: {key} must be positive, got {value!r}")
        references[key] = float(value)
    if not references:
        raise ValueError("no ceilings in it (keys such as hbm_copy_TBps with numbers)")
    rows = [_row(source, references[source.key], benchmarks) for source in CEILING_SOURCES if source.key in references]
    mapped = {source.key for source in CEILING_SOURCES}
    rows += [
        CeilingRow(key, reference, None, "not measured: no calibration benchmark maps to this key")
        for key, reference in references.items()
        if key not in mapped
    ]
    return rows


def _row(source: CeilingSource, reference: float, benchmarks: Mapping[str, Any]) -> CeilingRow:
    result = benchmarks.get(source.benchmark)
    if not isinstance(result, Mapping):
        return CeilingRow(source.key, reference, None, f"not measured: no '{source.benchmark}' in the calibration data")
    if "skipped" in result:
        return CeilingRow(source.key, reference, None, f"not measured: {source.benchmark} {result['skipped']}")
    if source.variant is not None:
        named = [v for v in result.get("variants", ()) if isinstance(v, Mapping) and v.get("variant") == source.variant]
        if not named:
            return CeilingRow(source.key, reference, None, f"not measured: {source.benchmark} has no variant "
                              f"'{source.variant}'")  # fmt: skip
        headline = f"; the result's own figure [{result.get('variant')}]: {float(result['per_s']) / source.scale:.4g}"
        result = named[0]
    else:
        headline = ""
    if source.field not in result:
        return CeilingRow(source.key, reference, None, f"not measured: {source.benchmark} has no {source.field}")
    measured = float(result[source.field]) / source.scale
    return CeilingRow(source.key, reference, measured, _describe(source, result) + headline)


def _describe(source: CeilingSource, result: Mapping[str, Any]) -> str:
    """Which measurement produced a value, in a few words: result.field [variant], and the clock and runs."""
    if "variant" in result:
        variant = f" [{result['variant']}]"
    else:  # the runner's _best: the fastest of several kernels
        variant = f" [fastest of {len(result['variants'])} variants]" if "variants" in result else ""
    if source.field == "per_sm_per_clk_cycles":
        clock = f"SM cycle counter: kernel at {result['kernel_clock_mhz']:.0f} MHz"
        return f"{source.benchmark}.{source.field}{variant} ({clock})"
    calls = f" of {result['calls_per_run']} calls" if "calls_per_run" in result else ""
    runs = f"median of {result['runs']} runs{calls}"
    return f"{source.benchmark}.{source.field}{variant} ({runs}; nvidia-smi {result['clock_mhz']:.0f} MHz)"


def csv_rows(rows: list[CeilingRow], tolerance: float = TOLERANCE) -> list[dict[str, str]]:
    """The rows as CSV cells (``CSV_COLUMNS``): numbers to 6 significant digits, the ratio to 4 decimals,
    within_10pct "yes"/"no"/"not measured"."""
    out = []
    for row in rows:
        within = row.within(tolerance)
        out.append(
            {
                "key": row.key,
                "reference": f"{row.reference:.6g}",
                "measured": "not measured" if row.measured is None else f"{row.measured:.6g}",
                "measured_over_reference": "" if row.ratio is None else f"{row.ratio:.4f}",
                "within_10pct": "not measured" if within is None else ("yes" if within else "no"),
                "measurement": row.measurement,
            }
        )
    return out


def write_ceilings_csv(rows: list[CeilingRow], path: str | Path) -> Path:
    """Write ``csv_rows(rows)`` to ``path`` (its folder must exist); return the path."""
    path = Path(path)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(CSV_COLUMNS))
        writer.writeheader()
        writer.writerows(csv_rows(rows))
    return path
