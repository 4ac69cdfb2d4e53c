"""The unit-overlap microbenchmark replayed in the model: do the modeled pipes share an SM as the H200's do?

`cupy_kernels/calibrate/overlap.cu` runs one CTA per SM whose warpgroups each play one role (wgmma SS or RS,
mma.sync, FA2's register-only inner loop, ex2 chains, FA's softmax mix, FFMA chains) alone and together, with fixed
work per role; `validation/h200/overlap_h200.json` holds the SM cycles of each configuration. This experiment
builds the same roles as model ops, with each role's iteration count taken from the measurement's own record, runs
each configuration on one SM of the H200 model (exact mode, no memory traffic) and compares the cycles. The
seventeenth session's run (`overlap_2026-12-03_h200.json`) adds integer ALU chains alone and beside the tensor
paths; its other configurations repeat the first run's, which are the ones replayed.

The FA2 role is built from the v2 schedule's own pieces (`algorithms._schedule.softmax.online_softmax` between two
mma.sync products), so its rows check the instruction mix and overlap rules that the v2 predictions rest on, with
memory and barriers taken out. Iteration counts are divided by `SCALE` (the model's steady state is reached within
a few iterations, and every configuration's count divides the same way), and the model's cycles, less the kernel
launch (the measurement counts SM cycles from the first warp's start), are multiplied back. Writes
`unit_overlap.csv` and `unit_overlap.png` (model against measured cycles per configuration).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from algorithms._schedule.softmax import online_softmax
from experiments._common import parse_args, save
from simgpu.arch import load_arch
from simgpu.engine import Engine
from simgpu.kernel import BarrierSpec, CtaResources, Kernel, Role
from simgpu.ops import Alu, Chain, Fma, Mma, Op, Repeat, Smem, Vector, Wait

MEASURED = Path(__file__).resolve().parent.parent / "validation" / "h200" / "overlap_h200.json"
# The seventeenth session's run of the same probe, which added integer ALU chains ("int"): its configurations that
# the first run does not have are replayed from it.
MEASURED_INT = MEASURED.with_name("overlap_2026-12-03_h200.json")
WARPGROUP_THREADS = 128
SMEM_BYTES = 120 * 1024  # overlap.py's DYNAMIC_SMEM: one CTA per SM
REGISTERS_PER_THREAD = 168  # 3 warpgroups under __launch_bounds__(384, 1)
SCALE = 64
# overlap.cu's loop bodies, per warpgroup iteration.
ALU_ELEMENTS = WARPGROUP_THREADS * 8 * 32  # ALU_CHAINS x ALU_STEPS per thread
ALU_CHAIN_STEPS = 32  # each of a thread's 8 chains runs ALU_STEPS dependent steps
WGMMA_K = 64  # K_STEPS = 4 wgmma m64n256k16 per commit group
HMMA_K = 16 * 8  # HMMA_STEPS = 8 dependent k-steps into each of HMMA_CHAINS = 8 accumulators (n = 64)
FA2_KEYS = 64  # one warp: 16 rows x 64 keys of S at d = 64
INT_OPS_PER_STEP = 3


def _wgmma_role(a: str, tag: str) -> Callable[[int], Sequence[Op]]:
    """One commit group of 4 wgmma per iteration, one group queued behind the running one (wait_group 1)."""

    def step(i: int) -> Sequence[Op]:
        mma = Mma(64, 256, WGMMA_K, "bf16", a=a, b="smem", arrive=(tag, i % 2))  # type: ignore[arg-type]
        return (mma, Wait((tag, (i - 1) % 2))) if i else (mma,)

    return step


def _hmma(_: int) -> Sequence[Op]:
    return (Mma(64, 64, HMMA_K, "bf16", a="reg", b="reg", instruction="mma_sync"),)


def _fa2(operand_smem_bytes: float) -> Callable[[int], Sequence[Op]]:
    """S = Q K^T, FA2's online softmax, O += P V for one warpgroup at d = 64. `operand_smem_bytes`: the B fragments
    read from shared memory by ldmatrix, as the v2 schedule charges them (FA2LD: 16 ldmatrix.x4 of 512 B per warp
    and product). The FA2BAR role's two barriers per iteration are among the role's own 4 warps, which the model
    already moves in step: the same ops as FA2LD."""
    product = Mma(64, 64, 64, "bf16", a="reg", b="reg", instruction="mma_sync", operand_smem_bytes=operand_smem_bytes)
    ops = (product, *online_softmax(64, FA2_KEYS, 64, masked=False), product)
    return lambda _: ops


def _ex2_mix(fma: int = 0, alu: int = 0) -> Callable[[int], Sequence[Op]]:
    """ex2 chains with `fma` FMA-pipe ops (FFMA, FADD) and `alu` ALU-pipe ops (FMNMX) per element. The chain per
    step is x -> FFMA -> EX2 -> x when there is an FFMA, else x -> EX2 -> x; FA's softmax mix is fma=2, alu=1."""
    chain = Chain(fma=ALU_CHAIN_STEPS if fma else 0, mufu=ALU_CHAIN_STEPS)
    ops = (Vector(fma=fma * ALU_ELEMENTS, alu=alu * ALU_ELEMENTS, ex2=ALU_ELEMENTS, chain=chain),)
    return lambda _: ops


def _ldsm(_: int) -> Sequence[Op]:
    # ALU_STEPS x ALU_CHAINS ldmatrix.x4 of 512 bytes per warp, 4 warps.
    return (Smem(read_bytes=4 * ALU_CHAIN_STEPS * 8 * 512),)


def _int(_: int) -> Sequence[Op]:
    # overlap.cu's INT: per element step a shift, an xor and an add, each waiting for the one before.
    return (Alu(INT_OPS_PER_STEP * ALU_ELEMENTS, chain=Chain(alu=INT_OPS_PER_STEP * ALU_CHAIN_STEPS)),)


def _fma(_: int) -> Sequence[Op]:
    return (Fma(ALU_ELEMENTS, chain=Chain(fma=ALU_CHAIN_STEPS)),)


TENSOR_ROLES = ("ss", "rs", "hmma", "fa2", "fa2ld", "fa2bar")
BODIES: dict[str, Callable[[int], Sequence[Op]]] = {
    "hmma": _hmma,
    "fa2": _fa2(0.0),
    "fa2ld": _fa2(4 * 16 * 512),
    "fa2bar": _fa2(4 * 16 * 512),
    "ex2": _ex2_mix(),
    "softmax": _ex2_mix(fma=2, alu=1),
    "ex2ffma": _ex2_mix(fma=1),
    "ex2max": _ex2_mix(alu=1),
    "ex2add": _ex2_mix(fma=1),
    "ldsm": _ldsm,
    "fma": _fma,
    "int": _int,
}


def _body(role: str, tag: str) -> Callable[[int], Sequence[Op]]:
    if role in ("ss", "rs"):  # each warpgroup has its own barrier ring
        return _wgmma_role("smem" if role == "ss" else "reg", tag)
    return BODIES[role]


def kernel(roles: Sequence[str], tensor_iters: int, alu_iters: int) -> Kernel:
    """One CTA of `len(roles)` warpgroups, each running its role's loop for its iteration count."""

    def program(role: str, tag: str) -> Callable[[object], Sequence[Op]]:
        iters = tensor_iters if role in TENSOR_ROLES else alu_iters
        return lambda _tile: (Repeat(iters, _body(role, tag)),)

    tags = [f"g{i}" for i in range(len(roles))]
    pairs = list(zip(roles, tags, strict=True))
    return Kernel(
        name="+".join(roles),
        tiles=(0,),
        cta=CtaResources(WARPGROUP_THREADS * len(roles), REGISTERS_PER_THREAD, SMEM_BYTES),
        roles=tuple(Role(f"{role}{i}", 4, program(role, tag)) for i, (role, tag) in enumerate(pairs)),
        barriers=tuple(BarrierSpec(tag, slots=2) for tag in tags),
    )


def model_cycles(roles: Sequence[str], tensor_iters: int, alu_iters: int, scale: int) -> float:
    arch = load_arch("h200")
    stats = Engine(arch, sms=1).run([kernel(roles, -(-tensor_iters // scale), -(-alu_iters // scale))])
    return (stats.cycles - arch.kernel_launch_s * arch.clock_hz) * scale


def measured_runs() -> dict[str, dict[str, dict[str, Any]]]:
    """Per group ("alone", "together"), the measured configurations: the first run's, and the later run's others."""
    first, later = json.loads(MEASURED.read_text()), json.loads(MEASURED_INT.read_text())
    return {group: first[group] | {k: v for k, v in later[group].items() if k not in first[group]}
            for group in ("alone", "together")}  # fmt: skip


def rows(scale: int = SCALE) -> list[dict[str, object]]:
    measured = measured_runs()
    out: list[dict[str, object]] = []
    for group in ("alone", "together"):
        for name, run in measured[group].items():
            roles = run["roles"]
            predicted = model_cycles(roles, run["tensor_iters"], run["alu_iters"], scale)
            out.append(
                {
                    "config": name,
                    "group": group,
                    "warps_per_scheduler": len(roles),
                    "tensor_iters": run["tensor_iters"],
                    "alu_iters": run["alu_iters"],
                    "measured_cycles": run["cycles"],
                    "model_cycles": predicted,
                    "rel_error": predicted / run["cycles"] - 1,
                }
            )
    return out


def plot(csv_path: Path, png_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with csv_path.open(newline="", encoding="utf-8") as handle:
        table = list(csv.DictReader(handle))
    names = [r["config"] for r in table]
    errors = [100 * float(r["rel_error"]) for r in table]
    fig, ax = plt.subplots(figsize=(9, 7))
    ax.barh(names, errors, color=["tab:red" if abs(e) > 10 else "tab:blue" for e in errors])
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel("model cycles vs H200 cycles (%), same work")
    ax.invert_yaxis()
    worst = max(range(len(errors)), key=lambda i: abs(errors[i]))
    mape = sum(abs(e) for e in errors) / len(errors)
    ax.set_title(f"Unit overlap on one SM: MAPE {mape:.1f}%, worst {names[worst]} {errors[worst]:+.0f}%")
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> list[dict[str, object]]:
    args = parse_args(__doc__, "the same run (it takes seconds)", argv)
    table = rows(SCALE)
    save(table, args.out, "unit_overlap", plot)
    return table


if __name__ == "__main__":
    main()
