"""The HBM's loaded latency on the H200: the measured probe against the arch file's rule and the engine.

The probe (`validation/probes/loaded_latency.py`, `validation/h200/loaded_latency_h200.csv`): SM 0 copies 16 KiB
boxes from HBM through TMA one at a time and times each, while 16-131 other SMs stream boxes (1-8 in flight each)
from HBM or from L2. For each measured setting this writes:
- the measured utilization of the HBM (the streamers' bytes per clock over the sustained rate at 1980 MHz) and the
  prober's extra latency over the idle chip, with the extra the arch file's rule (`hbm.loaded_latency`,
  `simgpu.units.hbm`) gives at that utilization;
- the same probe run by the engine on the H200 model (exact mode): the prober's median cycles per copy (from one
  copy's issue to the next's) and the HBM's busy fraction.
Then a PNG: the extra against utilization (measured points, the rule's line), and the prober's cycles per copy,
measured against the engine's, per setting. `--quick`: the idle chip and the 131-SM HBM settings only.
"""

from __future__ import annotations

import csv
import itertools
import statistics
from collections.abc import Hashable, Sequence
from pathlib import Path

from experiments._common import parse_args, save
from simgpu.arch import Arch, load_arch
from simgpu.engine import Engine
from simgpu.kernel import BarrierSpec, CtaResources, Kernel, Role
from simgpu.ops import Alu, Delay, Load, Op, Wait
from simgpu.trace import Trace

MEASURED = Path(__file__).resolve().parent.parent / "validation" / "h200" / "loaded_latency_h200.csv"
PROBE_CLOCK_HZ = 1.98e9  # the probe ran at the card's boost clock (no tensor work)
BOX_BYTES = 16384
PROBES = 24
ROUNDS = 60
SHARED_BOXES = 32  # the L2 streamers' boxes, read by all of them


def probe_in_model(arch: Arch, source: str, inflight: int, streamers: int) -> tuple[float, float]:
    """The probe on the engine: the prober's median cycles per copy (after its first, which reads the tensor map)
    and the HBM's busy fraction, with `streamers` SMs each keeping `inflight` boxes from `source` in flight."""

    def program(tile: Hashable) -> Sequence[Op]:
        if tile == 0:  # the prober: an Alu marker before each copy, after the streamers have started
            ops: list[Op] = [Delay(20_000)]
            for p in range(PROBES):
                ops += [Alu(1), Load("P", p, BOX_BYTES, engine="tma", arrive="p"), Wait("p")]
            return (*ops, Alu(1))
        ops = []
        for r in range(ROUNDS if inflight else 0):
            for b in range(inflight):
                i = r * inflight + b
                key = (tile, i) if source == "hbm" else i % SHARED_BOXES
                ops.append(Load(source, key, BOX_BYTES, engine="tma", arrive="s"))
            ops.append(Wait("s"))
        return tuple(ops)

    barriers = (BarrierSpec("p"), BarrierSpec("s", arrivals=max(inflight, 1)))
    tiles = tuple(range(1 + streamers))
    kernel = Kernel("loaded", tiles, CtaResources(32, 32, 160 * 1024), (Role("r", 1, program),), barriers)
    trace = Trace(sms=(0,))
    stats = Engine(arch.with_overrides({"clock_hz": PROBE_CLOCK_HZ, "power": None}), trace=trace).run([kernel])
    marks = sorted(span.start_cycles for span in trace.spans if span.name == "Alu")
    per_copy = [b - a for a, b in itertools.pairwise(marks[1:])]
    return statistics.median(per_copy), stats.units["hbm"].busy_cycles / stats.cycles


def rule_extra(arch: Arch, utilization: float) -> float:
    """The extra cycles the arch file's rule gives a miss at `utilization` of the sustained rate."""
    loaded = arch.hbm.loaded_latency
    if loaded is None:
        return 0.0
    return loaded.extra_cycles * min(1.0, utilization / loaded.knee_utilization)


def main(argv: list[str] | None = None) -> list[dict[str, object]]:
    args = parse_args(__doc__, "the idle chip and the 131-SM HBM settings only", argv)
    arch = load_arch("h200")
    sustained_per_clk = arch.hbm.sustained_bytes_per_s / PROBE_CLOCK_HZ
    with MEASURED.open(newline="", encoding="utf-8") as handle:
        measured = list(csv.DictReader(handle))
    idle = next(float(r["probe_latency_median_cycles"]) for r in measured if r["streamers_source"] == "idle")
    idle_model, _ = probe_in_model(arch, "idle", 0, 0)
    rows: list[dict[str, object]] = []
    for r in measured:
        source, inflight, streamers = r["streamers_source"], int(r["streamers_inflight_boxes"]), int(r["streaming_sms"])
        if args.quick and not (source == "idle" or (source == "hbm" and streamers == 131)):
            continue
        utilization = float(r["streamers_bytes_per_clk"]) / sustained_per_clk if source == "hbm" else 0.0
        model_median, model_busy = probe_in_model(arch, source, inflight, streamers)
        rows.append(
            {
                "source": source,
                "inflight": inflight,
                "streaming_sms": streamers,
                "measured_hbm_utilization": utilization,
                "measured_extra_cycles": float(r["probe_latency_median_cycles"]) - idle,
                "rule_extra_cycles": rule_extra(arch, utilization),
                "measured_probe_cycles": float(r["probe_latency_median_cycles"]),
                "model_probe_cycles": model_median,
                "model_extra_cycles": model_median - idle_model,
                "model_hbm_busy": model_busy,
            }
        )
    save(rows, args.out, "loaded_latency", plot)
    return rows


def plot(csv_path: Path, png_path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with csv_path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    hbm = [r for r in rows if r["source"] == "hbm"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12.5, 5.2), layout="constrained")
    utilization = [float(r["measured_hbm_utilization"]) for r in hbm]
    left.scatter(utilization, [float(r["measured_extra_cycles"]) for r in hbm], color="C0", label="measured (probe)")
    curve = sorted([*utilization, 0.0, 1.0])
    loaded = load_arch("h200")
    left.plot(curve, [rule_extra(loaded, u) for u in curve], "C1-", label="rule (hbm.loaded_latency)")
    left.set_xlabel("HBM utilization (streamers' bytes / sustained rate)")
    left.set_ylabel("extra cycles per 16 KiB copy over the idle chip")
    left.set_title("H200 loaded latency (rule fit up to 70% busy)")
    left.legend()
    labels = [f"{r['source']} {r['streaming_sms']}x{r['inflight']}" for r in rows]
    xs = range(len(rows))
    right.plot(xs, [float(r["measured_probe_cycles"]) for r in rows], "o", color="C0", label="measured")
    right.plot(xs, [float(r["model_probe_cycles"]) for r in rows], "x", color="C3", label="engine (h200 model)")
    right.set_xticks(list(xs), labels, rotation=70, fontsize=7)
    right.set_ylabel("prober cycles per copy")
    right.set_title("the probe per setting (source, SMs x boxes in flight)")
    right.legend()
    fig.savefig(png_path, dpi=110)
    plt.close(fig)
    return png_path


if __name__ == "__main__":
    main()
