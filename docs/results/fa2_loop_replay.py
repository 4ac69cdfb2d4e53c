"""Side check of the twentieth session: FA2's inner loop on one SM (the `fa2`, `fa2ld` and `fa2bar` roles of the
overlap microbenchmark, `validation/h200/overlap_h200.json`) replayed in the model four ways, to see which unit rule
its 15-52% excess comes from (`experiments/unit_overlap.py` replays it the first way).

- order "serial": S, the online softmax, then P V, each waiting for the one before (the v2 schedule's order);
- order "interleaved": P V issued beside the exp pass after its first k-step's exps (16 of 64 keys), as ptxas
  schedules our FA2 kernel (`docs/results/v2_pv_interleave_sass.txt`): the rest of the exp pass is an async
  `Vector` and P V waits for it at the end (a `Wait`, which costs the arch's `wait_cycles` on top);
- contention "as filed": the H200 file's rates; "mma.sync lanes 1.0": mma.sync and the MUFU, FMA and ALU pipes at
  full rate beside each other (the smem port's slowing beside mma.sync kept).
`fa2bar` also charges `latency.cta_sync_cycles` per bar.sync (two per iteration), which the replay in
`experiments/unit_overlap.py` leaves out. Cycles per iteration of the slowest role. Last, the whole microbenchmark's
replay (`experiments.unit_overlap`, 42 configurations, serial order) as filed and with the mma.sync lane rates at 1.0:
the dense pairs measure the rates the FA2 loop does not see. Run from the repository root:
`python docs/results/fa2_loop_replay.py > docs/results/fa2_loop_replay.txt`."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from algorithms._schedule.softmax import online_softmax
from experiments import unit_overlap
from experiments.unit_overlap import FA2_KEYS, SCALE, SMEM_BYTES, measured_runs
from simgpu.arch import load_arch
from simgpu.engine import Engine
from simgpu.kernel import BarrierSpec, CtaResources, Kernel, Role
from simgpu.ops import Delay, Mma, Op, Repeat, Vector, Wait

ROWS = ("fa2", "fa2+fa2", "fa2+fa2+fa2", "fa2ld", "fa2ld+fa2ld", "fa2ld+fa2ld+fa2ld", "fa2bar+fa2bar")
LDMATRIX_BYTES = 4 * 16 * 512  # FA2LD: 16 ldmatrix.x4 of 512 B per warp and product, 4 warps
FIRST_KEYS = 16  # P V's first k-step


def lane_rates_off() -> dict[str, float]:
    return {
        f"contention.mma_sync.{side}": 1.0
        for pipe in ("mufu", "fma", "alu")
        for side in (f"{pipe}_rate_while_tensor_busy", f"tensor_rate_while_{pipe}_busy")
    }


def body(role: str, tag: str, interleaved: bool, sync_cycles: float) -> Callable[[int], Sequence[Op]]:
    smem = 0.0 if role == "fa2" else LDMATRIX_BYTES
    product = Mma(64, 64, 64, "bf16", a="reg", b="reg", instruction="mma_sync", operand_smem_bytes=smem)
    row_max, quad_max, exps = online_softmax(64, FA2_KEYS, 64, masked=False)
    bar = (Delay(sync_cycles),) if role == "fa2bar" else ()
    if not interleaved:
        ops: tuple[Op, ...] = (*bar, product, row_max, quad_max, exps, *bar, product)
    else:
        head = FIRST_KEYS / FA2_KEYS

        def part(share: float, arrive: str | None = None) -> Vector:
            return Vector(fma=exps.fma * share, alu=exps.alu * share, ex2=exps.ex2 * share, chain=exps.chain,
                          arrive=arrive)  # fmt: skip

        ops = (*bar, product, row_max, quad_max, part(head), *bar, part(1 - head, f"e{tag}"), product, Wait(f"e{tag}"))
    return lambda _: ops


def cycles_per_iteration(roles: Sequence[str], iters: int, interleaved: bool, overrides: dict[str, float]) -> float:
    arch = load_arch("h200", overrides or None)
    assert arch.latency is not None
    tags = [f"g{i}" for i in range(len(roles))]
    steps = -(-iters // SCALE)
    kernel = Kernel(
        name="fa2_loop",
        tiles=(0,),
        cta=CtaResources(128 * len(roles), 168, SMEM_BYTES),
        roles=tuple(
            Role(
                f"r{i}", 4, lambda _t, r=r, t=t: (Repeat(steps, body(r, t, interleaved, arch.latency.cta_sync_cycles)),)
            )  # type: ignore[misc, union-attr]
            for i, (r, t) in enumerate(zip(roles, tags, strict=True))
        ),
        barriers=tuple(BarrierSpec(f"e{t}") for t in tags),
    )
    stats = Engine(arch, sms=1).run([kernel])
    return (stats.cycles - arch.kernel_launch_s * arch.clock_hz) / steps


def main() -> None:
    runs = measured_runs()["alone"]
    for order in ("serial", "interleaved"):
        for contention, overrides in (("as filed", {}), ("mma.sync lanes 1.0", lane_rates_off())):
            errors = []
            print(f"## order {order}, contention {contention}")
            for name in ROWS:
                run = runs[name]
                measured = run["cycles"] / run["tensor_iters"]
                model = cycles_per_iteration(run["roles"], run["tensor_iters"], order == "interleaved", overrides)
                errors.append(abs(model / measured - 1))
                print(f"  {name:20s} measured {measured:7.1f}  model {model:7.1f}  ({model / measured - 1:+.1%})")
            print(f"  mean |error| {sum(errors) / len(errors):.1%}")
    for contention, overrides in (("as filed", {}), ("mma.sync lanes 1.0", lane_rates_off())):
        unit_overlap.load_arch = lambda name, o=overrides: load_arch(name, o or None)  # type: ignore[assignment]
        rows = unit_overlap.rows()
        worst = sorted(rows, key=lambda r: -abs(float(r["rel_error"])))[:4]  # type: ignore[arg-type]
        mape = sum(abs(float(r["rel_error"])) for r in rows) / len(rows)  # type: ignore[arg-type]
        listed = ", ".join(f"{r['config']} {float(r['rel_error']):+.1%}" for r in worst)  # type: ignore[arg-type]
        print(f"## experiments.unit_overlap, contention {contention}: MAPE {mape:.1%} over {len(rows)}; worst {listed}")


if __name__ == "__main__":
    main()
