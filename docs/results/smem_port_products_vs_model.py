"""The products of our FA2 forward beside cp.async copies into the same SM's shared memory, measured
(`validation/probes/smem_port.py --products`: `validation/h200/smem_port_products_h200.csv`) against the model.

The probe runs one CTA of 8 warps per SM: 4 reader warps (one per scheduler) run S = Q K^T or O += P V of
`cupy_kernels/v2/fwd.cu` at d = 128 (or ldmatrix alone) while 4 writer warps copy an L2-resident buffer into another
part of shared memory with cp.async (mode 1: 16 KiB per round, one round in flight; mode 4: 32 KiB per round as
fwd.cu issues a K/V tile, two in flight) until the readers are done. Here the same roles run on one SM of the H200
model (exact mode, the whole chip's bandwidth for that SM): the readers as the v2 schedule's products
(`Mma(..., operand_smem_bytes=...)`) or an `Smem` read, the writers as cp.async `Load`s with the address code of
`algorithms._schedule.copies.tile_copy` (6 instructions per copy; the probe's PTX has 6) from 8 tiles kept in L2.
Compares the readers' rate (FLOP or bytes per SM cycle) and the writers' bytes per cycle. Run: `python
docs/results/smem_port_products_vs_model.py` (writes `smem_port_products_vs_model.txt`)."""

from __future__ import annotations

import csv
from collections.abc import Callable, Sequence
from pathlib import Path

from algorithms._schedule.copies import tile_copy
from simgpu.arch import load_arch
from simgpu.engine import Engine
from simgpu.kernel import BarrierSpec, CtaResources, Kernel, Role
from simgpu.ops import Mma, Op, Repeat, Smem, Wait
from simgpu.trace import Trace

MEASURED = Path("validation/h200/smem_port_products_h200.csv")
D, KEYS, ROWS, WARPS = 128, 64, 128, 4
ELEMENT_BYTES = 2
READER_ITERS = 48  # the model's steady state is reached within a few; the rates are per cycle
WRITER_ROUNDS = 400  # more than the readers need: the writers run until the readers are done
ROUND_BYTES = {1: 16 * 1024, 4: 32 * 1024}
IN_FLIGHT = {1: 1, 4: 2}
LDSM_BYTES_PER_ITER = WARPS * 8 * 512  # smem_port.cu READER 0: 8 ldmatrix.x4 of 512 bytes per warp


def product(n: int, k: int, operand_smem_bytes: int) -> Mma:
    """A product of fwd.cu as the v2 schedule charges it: mma.sync with its operands read by ldmatrix."""
    return Mma(ROWS, n, k, "bf16", a="reg", b="reg", instruction="mma_sync", operand_smem_bytes=operand_smem_bytes)


PRODUCT_FLOP = 2.0 * ROWS * KEYS * D
READERS: dict[str, tuple[Op, float]] = {  # the op and the FLOP (or bytes) it stands for
    "S = Q K^T, d = 128": (product(KEYS, D, (ROWS + WARPS * KEYS) * D * ELEMENT_BYTES), PRODUCT_FLOP),
    "O += P V, d = 128": (product(D, KEYS, WARPS * KEYS * D * ELEMENT_BYTES), PRODUCT_FLOP),
    "ldmatrix.x4": (Smem(read_bytes=LDSM_BYTES_PER_ITER), float(LDSM_BYTES_PER_ITER)),
}


def writer(mode: int) -> Callable[[object], Sequence[Op]]:
    """Rounds of cp.async copies, each waited for once `IN_FLIGHT[mode]` rounds are in flight."""
    depth = IN_FLIGHT[mode]

    def step(i: int) -> Sequence[Op]:
        copy = tile_copy("W", i % 8, ROUND_BYTES[mode], ("w", i % depth))
        ahead = i - depth + 1
        return (copy, Wait(("w", ahead % depth))) if ahead >= 0 else (copy,)

    return lambda _tile: (Repeat(WRITER_ROUNDS, step),)


def model_rates(reader: str, mode: int) -> tuple[float, float]:
    """The readers' rate (per SM cycle) and the writers' bytes per cycle while the readers run."""
    op, work = READERS[reader]
    roles = [Role("reader", WARPS, lambda _tile: (Repeat(READER_ITERS, lambda _i: (op,)),))]
    if mode:
        roles.append(Role("writer", WARPS, writer(mode)))
    kernel = Kernel(
        name="smem_port",
        tiles=(0,),
        cta=CtaResources(32 * WARPS * len(roles), 128, 116 * 1024),
        roles=tuple(roles),
        barriers=(BarrierSpec("w", slots=2),),
    )
    trace = Trace(sms=(0,))
    Engine(load_arch("h200"), sms=1, trace=trace).run([kernel])
    reads = [span for span in trace.spans if span.track.endswith("reader")]
    start, end = min(s.start_cycles for s in reads), max(s.end_cycles for s in reads)
    landed = sum(1 for s in trace.spans if s.track.endswith("writer") and s.name == "Load" and s.end_cycles <= end)
    return READER_ITERS * work / (end - start), landed * ROUND_BYTES.get(mode, 0) / (end - start)


def main() -> None:
    lines = ["reader, writers: readers' rate measured / model (writers' B/clk measured / model)"]
    for row in csv.DictReader(MEASURED.open(encoding="utf-8")):
        mode = int(row["mode"])
        if row["reader"] not in READERS:
            continue
        rate, written = model_rates(row["reader"], mode)
        measured = float(row["flop_per_clk"]) or float(row["read_bytes_per_clk"])
        unit = "B/clk" if row["reader"] == "ldmatrix.x4" else "FLOP/clk"
        lines.append(
            f"{row['reader']:20s} {row['writers']:26s} {measured:7.1f} / {rate:7.1f} {unit} "
            f"({rate / measured - 1:+.1%})"
            f"  writes {float(row['write_bytes_per_clk']):5.1f} / {written:5.1f}"
        )
    text = "\n".join(lines) + "\n"
    print(text, end="")
    Path("docs/results/smem_port_products_vs_model.txt").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
