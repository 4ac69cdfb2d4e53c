"""Do tensor cores and MUFU / FMA pipes overlap on one SM? ``python -m cupy_kernels.calibrate.overlap --out DIR``.

Runs ``overlap.cu`` (one CTA per SM, 1-3 warpgroups, each with a role: wgmma SS or RS, mma.sync, FA2's inner
loop from registers, with ldmatrix operands and with barriers, ex2 chains, FA's softmax mix and its parts, FFMA
chains) alone and together, and writes
``overlap_h200.json`` with, per configuration, the cycles and the work per clock per SM of each unit, counted with
the SM cycle counter of every warp (so the rates per clock hold whatever the power cap does to the clock).

Iteration counts are sized by a short probe run of each role alone, so that every unit's work alone takes about
``TARGET_CYCLES``: run together with perfect overlap, a pair then takes ``TARGET_CYCLES``; time-shared, twice that.
Each together configuration runs twice: with fixed work for both units (overall time against the max and sum of
the alone times), and with the ALU warpgroup looping until the tensor warpgroups finish (``fill``), which gives
both units' rates over the same window. Nothing here imports ``simgpu`` (absent on the GPU machine).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from cupy_kernels import common
from cupy_kernels.common import cp

SOURCE = Path(__file__).resolve().parent / "overlap.cu"
KERNEL = "overlap"
KEY = 0x9E3779B9  # `keep`'s key (bench.cuh)

# overlap.cu's Role
ROLE_CODES = {
    "ss": 1,
    "rs": 2,
    "ex2": 3,
    "softmax": 4,
    "fma": 5,
    "hmma": 6,
    "fa2": 7,
    "fa2ld": 8,
    "fa2bar": 9,
    "ex2ffma": 10,
    "ex2max": 11,
    "ex2add": 12,
    "ldsm": 13,
    "int": 14,
}
TENSOR_ROLES = ("ss", "rs", "hmma", "fa2", "fa2ld", "fa2bar")
UNIT = {role: "flop" for role in TENSOR_ROLES} | {"ex2": "ex2", "softmax": "ex2", "fma": "ffma"}
UNIT |= {"ex2ffma": "ex2", "ex2max": "ex2", "ex2add": "ex2", "ldsm": "smem_bytes", "int": "int_steps"}
# Work of one warp in one loop iteration: a quarter of a warpgroup's K_STEPS = 4 wgmma m64n256k16, or 32 threads x
# ALU_CHAINS x ALU_STEPS = 8 x 32 elements (one ex2 per softmax element); hmma: HMMA_CHAINS x HMMA_STEPS = 64
# mma.sync m16n8k16; fa2, fa2ld, fa2bar: 32 mma.sync for S and 32 for PV.
WGMMA_PER_WARP_ITER = 4 * 2 * 64 * 256 * 16 // 4
MMA_SYNC_FLOP = 2 * 16 * 8 * 16
WORK_PER_WARP_ITER = {
    "ss": WGMMA_PER_WARP_ITER,
    "rs": WGMMA_PER_WARP_ITER,
    "hmma": 64 * MMA_SYNC_FLOP,
    "fa2": 64 * MMA_SYNC_FLOP,
    "fa2ld": 64 * MMA_SYNC_FLOP,
    "fa2bar": 64 * MMA_SYNC_FLOP,
    "ex2": 8192,
    "ex2ffma": 8192,
    "ex2max": 8192,
    "ex2add": 8192,
    "ldsm": 32 * 8 * 512,  # ALU_STEPS x ALU_CHAINS ldmatrix.x4 of 512 bytes
    "softmax": 8192,
    "fma": 8192,
    "int": 8192,  # shift, xor, add per step
}
MAX_WARPS, RECORD_WORDS = 12, 3  # overlap.cu's record layout
DYNAMIC_SMEM = 120 * 1024  # over half of the SM's 228 KiB: exactly one CTA per SM
TARGET_CYCLES = 4_000_000  # ~2 ms per unit alone at ~2 GHz: launch overhead and the ALU `fill` tail under 0.1%
PROBE_ITERS = {role: 64 for role in TENSOR_ROLES} | {"ex2": 16, "softmax": 16, "fma": 64}
PROBE_ITERS |= {"ex2ffma": 16, "ex2max": 16, "ex2add": 16, "ldsm": 16, "int": 64}
REPEATS = 9

# fa2 alone, twice and three times: one, two and three warps per scheduler (our FA2 kernel at d = 64 runs two).
ALONE = (
    ("ss",),
    ("ss", "ss"),
    ("rs",),
    ("rs", "rs"),
    ("hmma",),
    ("hmma", "hmma"),
    ("fa2",),
    ("fa2", "fa2"),
    ("fa2", "fa2", "fa2"),
    ("fa2ld",),
    ("fa2ld", "fa2ld"),
    ("fa2ld", "fa2ld", "fa2ld"),
    ("fa2bar", "fa2bar"),
    ("ex2",),
    ("ex2", "ex2"),
    ("softmax",),
    ("softmax", "softmax"),
    ("softmax", "softmax", "softmax"),
    ("ex2ffma",),
    ("ex2max",),
    ("ex2add",),
    ("ldsm",),
    ("fma",),
    ("int",),
)
TOGETHER = (
    ("ss", "ex2"),
    ("ss", "softmax"),
    ("ss", "fma"),
    ("rs", "ex2"),
    ("rs", "softmax"),
    ("ss", "ss", "ex2"),
    ("ss", "ss", "softmax"),
    ("rs", "rs", "softmax"),
    ("hmma", "ex2"),
    ("hmma", "softmax"),
    ("hmma", "fma"),
    ("hmma", "hmma", "softmax"),
    ("hmma", "ldsm"),
    ("ss", "ldsm"),
    ("rs", "ldsm"),
    ("hmma", "int"),
    ("ss", "int"),
    ("hmma", "hmma", "int"),
)


def config_name(roles: tuple[str, ...]) -> str:
    return "+".join(roles)


def split_roles(roles: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(tensor warpgroups, ALU warpgroups) of a configuration."""
    return tuple(r for r in roles if r in TENSOR_ROLES), tuple(r for r in roles if r not in TENSOR_ROLES)


def analyse(records: np.ndarray, roles: tuple[str, ...]) -> dict[str, Any]:
    """Cycles and rates per SM from one launch's ``records`` (SMs x MAX_WARPS x RECORD_WORDS): per unit (tensor
    or ALU), its work over the span from its first warp's start to its last warp's end; medians over the SMs."""
    warps = records[:, : 4 * len(roles), :].astype(np.float64)
    start, end, iters = warps[:, :, 0], warps[:, :, 1], warps[:, :, 2]
    if (end <= start).any() or (iters <= 0).any():  # records are zeroed before each launch
        raise RuntimeError(f"{config_name(roles)}: a warp left no record")
    role_of_warp = [role for role in roles for _ in range(4)]
    out: dict[str, Any] = {"cycles": float(np.median(end.max(axis=1) - start.min(axis=1)))}
    out["cycles_max"] = float((end.max(axis=1) - start.min(axis=1)).max())
    for unit, unit_roles in zip(("tensor", "alu"), split_roles(roles), strict=True):
        if not unit_roles:
            continue
        cols = [i for i, role in enumerate(role_of_warp) if role in unit_roles]
        span = end[:, cols].max(axis=1) - start[:, cols].min(axis=1)
        work = sum(iters[:, i] * WORK_PER_WARP_ITER[role_of_warp[i]] for i in cols)
        out[unit] = {
            "roles": list(unit_roles),
            "unit": UNIT[unit_roles[0]],
            "cycles": float(np.median(span)),
            "per_sm_per_clk": float(np.median(work / span)),
            "work_per_sm": float(np.median(work)),
        }
    return out


class Overlap:
    """The compiled kernel, its inputs and the launches of one measurement."""

    def __init__(self) -> None:
        self.sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
        module = cp.RawModule(
            code=common.load_source(SOURCE),
            options=(*common.NVRTC_OPTIONS, "-arch=sm_90a"),  # wgmma needs the arch-specific target
            name_expressions=(KERNEL,),
        )
        self.kernel = module.get_function(KERNEL)
        self.kernel.max_dynamic_shared_size_bytes = DYNAMIC_SMEM
        rng = cp.random.default_rng(11)
        # 4096 words of bf16 pairs (standard normal / 8: finite, never zero), then 257 floats in [0.5, 1).
        bf16 = common.to_bf16_bits(rng.standard_normal(2 * 4096, dtype=cp.float32) / 8).view(cp.uint32)
        floats = (rng.random(257, dtype=cp.float32) * 0.5 + 0.5).view(cp.uint32)
        self.seed = cp.concatenate([bf16, floats])
        self.sink = cp.zeros(1, dtype=cp.uint32)
        self.records = cp.zeros((self.sms, MAX_WARPS, RECORD_WORDS), dtype=cp.uint64)

    def launch(self, roles: tuple[str, ...], tensor_iters: int, alu_iters: int, fill: bool) -> None:
        packed = sum(ROLE_CODES[role] << (4 * i) for i, role in enumerate(roles))
        args = (self.seed, np.uint32(packed), np.int32(tensor_iters), np.int32(alu_iters), np.int32(fill))
        self.kernel(
            (self.sms,),
            (128 * len(roles),),
            (*args, np.uint32(KEY), self.sink, self.records),
            shared_mem=DYNAMIC_SMEM,
        )

    def run(self, roles: tuple[str, ...], tensor_iters: int, alu_iters: int, fill: bool = False) -> dict[str, Any]:
        """One warm-up and REPEATS timed launches; each launch analysed on its own, the median launch kept (by
        overall cycles), with the clock the SMs counted (slowest SM's cycles over the event time)."""
        start, end = cp.cuda.Event(), cp.cuda.Event()
        self.launch(roles, tensor_iters, alu_iters, fill)
        runs = []
        for _ in range(REPEATS):
            self.records.fill(0)
            start.record()
            self.launch(roles, tensor_iters, alu_iters, fill)
            end.record()
            end.synchronize()
            ms = float(cp.cuda.get_elapsed_time(start, end))
            result = analyse(cp.asnumpy(self.records), roles)
            runs.append({**result, "time_ms": ms, "clock_mhz": result["cycles_max"] / (ms * 1e3)})
        runs.sort(key=lambda r: r["cycles"])
        median = runs[len(runs) // 2]
        return {
            "roles": list(roles),
            "fill": fill,
            "tensor_iters": tensor_iters,
            "alu_iters": alu_iters,
            **median,
            "cycles_spread": [runs[0]["cycles"], runs[-1]["cycles"]],
        }


def compare(together: dict[str, Any], alone: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Each unit's rate together over its rate alone and, with fixed work (not ``fill``, whose ALU work depends on
    the run), overall cycles against the max and the sum of the alone cycles, and ``hidden``: the share of the
    shorter alone time that the overlap hid (1 = perfect overlap, 0 = the sum)."""
    tensor_roles, alu_roles = split_roles(tuple(together["roles"]))
    alone_t, alone_a = alone[config_name(tensor_roles)], alone[config_name(alu_roles)]
    ratio_t = together["tensor"]["per_sm_per_clk"] / alone_t["tensor"]["per_sm_per_clk"]
    ratio_a = together["alu"]["per_sm_per_clk"] / alone_a["alu"]["per_sm_per_clk"]
    rates = {
        "tensor_vs_alone": ratio_t,
        "alu_vs_alone": ratio_a,
        "rate_sum": ratio_t + ratio_a,  # 2: both at full rate at once; 1: the units take turns
    }
    if together["fill"]:
        return rates
    t_cycles, a_cycles = alone_t["cycles"], alone_a["cycles"]
    return {
        **rates,
        "alone_cycles": [t_cycles, a_cycles],
        "over_max": together["cycles"] / max(t_cycles, a_cycles),
        "over_sum": together["cycles"] / (t_cycles + a_cycles),
        "hidden": (t_cycles + a_cycles - together["cycles"]) / min(t_cycles, a_cycles),
    }


def measure() -> dict[str, Any]:
    """Every configuration alone and together (fixed work and ``fill``), with the comparisons."""
    ov = Overlap()
    cycles_per_iter = {}
    for role, iters in PROBE_ITERS.items():
        probe = ov.run((role,), iters, iters)
        unit = "tensor" if role in TENSOR_ROLES else "alu"
        cycles_per_iter[role] = probe[unit]["cycles"] / iters
    iters_for = {role: max(1, round(TARGET_CYCLES / cpi)) for role, cpi in cycles_per_iter.items()}

    def iterations(roles: tuple[str, ...]) -> tuple[int, int]:
        # The tensor warpgroups split the tensor work, so the tensor unit's total work is the same for 1 or 2.
        tensor_roles, alu_roles = split_roles(roles)
        tensor = max(1, iters_for[tensor_roles[0]] // len(tensor_roles)) if tensor_roles else 0
        return tensor, iters_for[alu_roles[0]] if alu_roles else 0

    alone = {config_name(roles): ov.run(roles, *iterations(roles)) for roles in ALONE}
    together, filled = {}, {}
    for roles in TOGETHER:
        name = config_name(roles)
        together[name] = ov.run(roles, *iterations(roles))
        together[name]["vs_alone"] = compare(together[name], alone)
        filled[name] = ov.run(roles, *iterations(roles), fill=True)
        filled[name]["vs_alone"] = compare(filled[name], alone)
    return {
        "gpu": common.gpu_facts(),
        "method": __doc__,
        "cycles_per_iter_probe": cycles_per_iter,
        "alone": alone,
        "together": together,
        "together_fill": filled,
    }


def table(measured: dict[str, Any]) -> str:
    """Alone and together rates per clock per SM (cycle counter) and the time comparisons."""
    lines = ["alone:", f"{'config':<16} {'unit':<7} {'per clk/SM':>11} {'cycles':>10} {'clock MHz':>9}"]
    for name, r in measured["alone"].items():
        unit = r.get("tensor") or r["alu"]
        lines.append(
            f"{name:<16} {unit['unit']:<7} {unit['per_sm_per_clk']:>11.2f} {r['cycles']:>10.0f} {r['clock_mhz']:>9.0f}"
        )
    head = (
        f"{'config':<16} {'mode':<5} {'tensor/clk':>10} {'x alone':>7} {'alu/clk':>8} {'x alone':>7} {'sum':>5} "
        f"{'cycles':>10} {'/max':>5} {'/sum':>5} {'hidden':>6} {'MHz':>5}"
    )
    lines += ["together (fixed: both units fixed work; fill: ALU runs while the tensor unit does):", head]
    for mode, key in (("fixed", "together"), ("fill", "together_fill")):
        for name, r in measured[key].items():
            c = r["vs_alone"]
            times = f"{c['over_max']:>5.2f} {c['over_sum']:>5.2f} {c['hidden']:>6.2f}" if "hidden" in c else " " * 18
            lines.append(
                f"{name:<16} {mode:<5} {r['tensor']['per_sm_per_clk']:>10.0f} {c['tensor_vs_alone']:>7.3f} "
                f"{r['alu']['per_sm_per_clk']:>8.2f} {c['alu_vs_alone']:>7.3f} {c['rate_sum']:>5.2f} "
                f"{r['cycles']:>10.0f} {times} {r['clock_mhz']:>5.0f}"
            )
    return "\n".join(lines)


def main(out_dir: str) -> dict[str, Any]:
    measured = measure()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "overlap_h200.json").write_text(json.dumps(measured, indent=2) + "\n")
    print(table(measured))
    return measured


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="directory for overlap_h200.json")
    main(parser.parse_args().out)


if __name__ == "__main__":
    cli()
