"""Dependent-chain latencies and latency hiding on one SM: ``python -m cupy_kernels.calibrate.latency --out DIR``.

Runs ``latency.cu`` and writes ``latency_h200.json`` with, in SM cycles (clock64):
- ``latency``: per instruction (or per round trip) of a dependent chain run by one warp (a warpgroup for wgmma,
  4 or 8 warps for bar.sync), one CTA on one SM: FFMA, FMNMX, MUFU ex2, F2FP, SHFL.BFLY, LDS 32/128-bit, LDSM.x4,
  mma.sync m16n8k16 bf16, wgmma m64n128k16 / m64n256k16 SS (issue -> wait_group 0, 1 or 4 per group), bar.sync,
  mbarrier arrive -> try_wait, cp.async 16 B (L2 hit) -> wait_group 0.
- ``hiding``: ex2 and mma.sync throughput per SM per clock with 1-16 warps per SM (one CTA per SM, every SM) and
  1 or 4 independent chains per warp, next to what latency alone allows (warps x chains / latency, capped at the
  unit's rate on the schedulers those warps occupy).

Each kernel runs twice, with ``ITERS`` loop iterations of ``STEPS`` chain steps; the cycle difference over the
step difference is the cost per step, free of the fixed costs (setup, clock reads, the last result's drain).
``REPEATS`` pairs; the median and the spread are kept. Nothing here imports ``simgpu``.
"""

from __future__ import annotations

import argparse
import json
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cupy_kernels import common
from cupy_kernels.common import cp

SOURCE = Path(__file__).resolve().parent / "latency.cu"
KEY = 0x9E3779B9  # `keep`'s key (bench.cuh)
STEPS = 32  # latency.cu's chain steps per loop iteration
ITERS = (4, 36)  # the two loop counts: 1024 steps apart
REPEATS = 5
WGMMA_SMEM = 32768 + 8192 + 1024  # wgmma.cu's B_BYTES + A_BYTES + 1 KiB for 1024-byte alignment
HIDE_WARPS = (1, 2, 4, 8, 16)
HIDE_CHAINS = (1, 4)
# Work per warp instruction (ex2: lanes; mma: FLOP) and the unit's rate per SM per clock, cycle-counted by the
# calibration run (validation/h200/calibration_h200.json: 15.98 ex2, 2730 FLOP of mma.sync).
WORK_PER_INSTR = {"ex2": 32, "mma": 2 * 16 * 8 * 16}
PEAK_PER_SM_PER_CLK = {"ex2": 16.0, "mma": 2730.0}
HIDE_KERNEL = {"ex2": "alu_chain<2, {chains}>", "mma": "mma_chain<{chains}>"}  # latency.cu's AluOp EX2 = 2
HIDE_LATENCY = {"ex2": "ex2", "mma": "mma_m16n8k16"}  # the LATENCIES entry that is each curve's 1-chain latency


@dataclass(frozen=True)
class Chain:
    """One latency measurement: ``kernel`` launched as one CTA of ``threads``; ``seed`` picks the input words
    (``float``: floats in [0.5, 1); ``bf16``: pairs of random bf16)."""

    name: str
    kernel: str
    threads: int
    seed: str
    description: str
    smem: int = 0


LATENCIES = (
    Chain("ffma", "alu_chain<0, 1>", 32, "float", "FFMA x = a x + b"),
    Chain("fmnmx", "alu_chain<1, 1>", 32, "float", "FMNMX x = max(-x, c) (fmaxf)"),
    Chain("ex2", "alu_chain<2, 1>", 32, "float", "MUFU.EX2 ex2.approx.ftz.f32"),
    Chain("f2fp", "alu_chain<3, 1>", 32, "float", "F2FP cvt.rn.bf16x2.f32"),
    Chain("shfl_bfly", "alu_chain<4, 1>", 32, "float", "SHFL.BFLY shfl.sync.bfly.b32"),
    Chain("lds32", "smem_chain<0>", 32, "float", "LDS ld.shared.u32 pointer chase"),
    Chain("lds128", "smem_chain<1>", 32, "float", "LDS.128 ld.shared.v4.u32 pointer chase"),
    Chain("ldmatrix_x4", "smem_chain<2>", 32, "float", "LDSM.16.M88.4 ldmatrix.x4 pointer chase"),
    Chain("mma_m16n8k16", "mma_chain<1>", 32, "bf16", "HMMA mma.sync m16n8k16 bf16, D -> C chain"),
    Chain("wgmma_m64n128k16", "wgmma_chain<128, 1>", 128, "bf16", "fence, 1 wgmma SS, commit, wait 0", WGMMA_SMEM),
    Chain("wgmma_m64n128k16_x4", "wgmma_chain<128, 4>", 128, "bf16", "fence, 4 wgmma SS, commit, wait 0", WGMMA_SMEM),
    Chain("wgmma_m64n256k16", "wgmma_chain<256, 1>", 128, "bf16", "fence, 1 wgmma SS, commit, wait 0", WGMMA_SMEM),
    Chain("wgmma_m64n256k16_x4", "wgmma_chain<256, 4>", 128, "bf16", "fence, 4 wgmma SS, commit, wait 0", WGMMA_SMEM),
    Chain("bar_sync_4warps", "bar_chain", 128, "float", "bar.sync 0, 4 warps arriving together"),
    Chain("bar_sync_8warps", "bar_chain", 256, "float", "bar.sync 0, 8 warps arriving together"),
    Chain("mbarrier_round_trip", "mbarrier_chain", 32, "float", "32 lanes arrive, try_wait.parity until done"),
    Chain("cp_async_16B_l2", "cp_async_chain", 32, "float", "cp.async.cg 16 B/lane (L2 hit), commit, wait_group 0"),
)


def kernel_names() -> list[str]:
    """Every instantiation ``measure`` launches (the no-GPU test compiles exactly these)."""
    hide = [HIDE_KERNEL[op].format(chains=c) for op in HIDE_KERNEL for c in HIDE_CHAINS]
    return list(dict.fromkeys([c.kernel for c in LATENCIES] + hide))


def instantiation_source() -> str:
    """A translation unit that makes nvcc compile every kernel ``measure`` launches (for -Xptxas -v and SASS)."""
    refs = ", ".join(f"(void*)&{name}" for name in kernel_names())
    return f'#include "{SOURCE}"\nstatic void* const kernels[] = {{{refs}}};\n'


def latency_bound(op: str, warps: int, chains: int, latency: float) -> float:
    """Throughput per SM per clock that latency alone allows: every warp keeps ``chains`` instructions in flight
    per ``latency`` cycles, and warp w runs on scheduler w % 4, so fewer than 4 warps reach only that share of
    the unit's rate."""
    schedulers = min(warps, 4)
    return min(PEAK_PER_SM_PER_CLK[op] * schedulers / 4, warps * chains * WORK_PER_INSTR[op] / latency)


class Latency:
    """The compiled module, the two seed buffers and the paired launches."""

    def __init__(self) -> None:
        self.sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
        self.module = cp.RawModule(
            code=common.load_source(SOURCE),
            options=(*common.NVRTC_OPTIONS, "-arch=sm_90a"),  # wgmma needs the arch-specific target
            name_expressions=tuple(kernel_names()),
        )
        rng = cp.random.default_rng(7)
        # 4096 words each: floats in [0.5, 1) (never zero, inside the ALU chains' domain) and bf16 pairs (standard
        # normal / 8: finite, never zero).
        self.seeds = {
            "float": (rng.random(4096, dtype=cp.float32) * 0.5 + 0.5).view(cp.uint32),
            "bf16": common.to_bf16_bits(rng.standard_normal(2 * 4096, dtype=cp.float32) / 8).view(cp.uint32),
        }
        self.sink = cp.zeros(1, dtype=cp.uint32)

    def cycles_per_iter(self, kernel: str, ctas: int, threads: int, seed: str, smem: int = 0) -> dict[str, Any]:
        """Cycles of one loop iteration (STEPS steps): per launch the median over its CTAs, per repeat the
        difference between the two ``ITERS`` launches over their iteration difference; median and range."""
        function = self.module.get_function(kernel)
        cycles = cp.zeros(ctas, dtype=cp.uint64)

        def launch(iters: int) -> float:
            cycles.fill(0)
            args = (self.seeds[seed], np.int32(iters), np.uint32(KEY), self.sink, cycles)
            function((ctas,), (threads,), args, shared_mem=smem)
            counted = cp.asnumpy(cycles)
            if (counted == 0).any():
                raise RuntimeError(f"{kernel}: a CTA left no cycle count")
            return float(np.median(counted))

        launch(ITERS[0])  # warm-up: module load, the cp.async source into L2
        per_iter = []
        for _ in range(REPEATS):
            short, long = launch(ITERS[0]), launch(ITERS[1])
            per_iter.append((long - short) / (ITERS[1] - ITERS[0]))
        return {"median": statistics.median(per_iter), "range": [min(per_iter), max(per_iter)]}

    def latency(self, chain: Chain) -> dict[str, Any]:
        per_iter = self.cycles_per_iter(chain.kernel, 1, chain.threads, chain.seed, chain.smem)
        return {
            "cycles": per_iter["median"] / STEPS,
            "range": [c / STEPS for c in per_iter["range"]],
            "description": chain.description,
            "kernel": chain.kernel,
            "threads": chain.threads,
        }

    def hiding(self, op: str, warps: int, chains: int, latency: float) -> dict[str, Any]:
        kernel = HIDE_KERNEL[op].format(chains=chains)
        per_iter = self.cycles_per_iter(kernel, self.sms, 32 * warps, "bf16" if op == "mma" else "float")
        work = warps * chains * STEPS * WORK_PER_INSTR[op]
        rate = work / per_iter["median"]
        bound = latency_bound(op, warps, chains, latency)
        return {
            "warps": warps,
            "chains": chains,
            "per_sm_per_clk": rate,
            "range": [work / per_iter["range"][1], work / per_iter["range"][0]],
            "of_peak": rate / PEAK_PER_SM_PER_CLK[op],
            "latency_bound": bound,
            "of_latency_bound": rate / bound,
        }


def measure() -> dict[str, Any]:
    """Every latency, then the two latency-hiding curves."""
    lat = Latency()
    latency = {chain.name: lat.latency(chain) for chain in LATENCIES}
    hiding = {
        op: [
            lat.hiding(op, warps, chains, latency[HIDE_LATENCY[op]]["cycles"])
            for chains in HIDE_CHAINS
            for warps in HIDE_WARPS
        ]
        for op in HIDE_KERNEL
    }
    return {
        "gpu": common.gpu_facts(),
        "method": __doc__,
        "steps_per_iter": STEPS,
        "iters": list(ITERS),
        "peak_per_sm_per_clk": PEAK_PER_SM_PER_CLK,
        "work_per_instr": WORK_PER_INSTR,
        "latency": latency,
        "hiding": hiding,
    }


def table(measured: dict[str, Any]) -> str:
    lines = [f"{'latency (SM cycles)':<22} {'cycles':>8} {'range':>17}  what"]
    for name, r in measured["latency"].items():
        lo, hi = r["range"]
        lines.append(f"{name:<22} {r['cycles']:>8.2f} {lo:>8.2f}-{hi:<8.2f}  {r['description']}")
    head = f"{'op':<4} {'warps':>5} {'chains':>6} {'per clk/SM':>10} {'of peak':>7} {'lat bound':>9} {'of bound':>8}"
    lines += ["", head]
    for op, rows in measured["hiding"].items():
        for r in rows:
            lines.append(
                f"{op:<4} {r['warps']:>5} {r['chains']:>6} {r['per_sm_per_clk']:>10.2f} {r['of_peak']:>7.3f} "
                f"{r['latency_bound']:>9.2f} {r['of_latency_bound']:>8.3f}"
            )
    return "\n".join(lines)


def main(out_dir: str) -> dict[str, Any]:
    measured = measure()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "latency_h200.json").write_text(json.dumps(measured, indent=2) + "\n")
    print(table(measured))
    return measured


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="directory for latency_h200.json")
    main(parser.parse_args().out)


if __name__ == "__main__":
    cli()
