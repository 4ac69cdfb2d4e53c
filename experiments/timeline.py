"""Utilization timelines of one SM: which unit and which warp role is busy when, for v2 and v3 (H100) and v4 (B200).

For each algorithm, simulates a small problem with a trace of SM 0, writes the Chrome trace JSON (open it in
Perfetto: one track per unit and per warp role) and a Gantt PNG of the first `--window` microseconds after the
first CTA starts: units on top (tensor core, MUFU, FMA, ALU, smem, TMA, issue), warp roles below, each bar one op.
The CSV lists every span drawn. `--quick` uses a smaller problem.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

from experiments._common import OUT_DIR, write_csv
from simgpu import Problem, Trace, load_arch, simulate
from simgpu.problem import AnyProblem
from simgpu.trace import Span

CASES = {"v2": "h100", "v3": "h100", "v4": "b200"}
UNIT_ORDER = ("unit tensor", "unit mufu", "unit fma", "unit alu", "unit smem", "unit tmem", "unit tma", "unit issue")


def problem(quick: bool) -> AnyProblem:
    return Problem(1, 8, 512, 128) if quick else Problem(2, 16, 2048, 128)


def spans_to_rows(algo: str, spans: tuple[Span, ...], clock_hz: float, window_us: float) -> list[dict[str, object]]:
    sm_spans = [s for s in spans if s.process == "SM 0"]
    start = min(s.start_cycles for s in sm_spans)
    end = start + window_us * 1e-6 * clock_hz
    return [
        {
            "algo": algo,
            "track": s.track,
            "name": s.name,
            "start_us": (s.start_cycles - start) / clock_hz * 1e6,
            # Clipped in microseconds: clipped in cycles, the window's end came out 4.000000000000001 us.
            "end_us": min((s.end_cycles - start) / clock_hz * 1e6, window_us),
        }
        for s in sm_spans
        if s.start_cycles < end and s.end_cycles > s.start_cycles
    ]


def plot(csv_path: Path, png_path: Path, titles: dict[str, str]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with csv_path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    algos = list(dict.fromkeys(r["algo"] for r in rows))
    figure, axes = plt.subplots(len(algos), 1, figsize=(12, 3.2 * len(algos)), squeeze=False)
    for axis, algo in zip(axes[:, 0], algos, strict=True):
        mine = [r for r in rows if r["algo"] == algo]
        roles = sorted({r["track"] for r in mine if not r["track"].startswith("unit ")})
        tracks = [t for t in UNIT_ORDER if any(r["track"] == t for r in mine)] + roles
        colors = plt.get_cmap("tab10")
        names = sorted({r["name"] for r in mine})
        for y, track in enumerate(tracks):
            bars = [
                (float(r["start_us"]), float(r["end_us"]) - float(r["start_us"]), r["name"])
                for r in mine
                if r["track"] == track
            ]
            for start, width, name in bars:
                axis.broken_barh([(start, width)], (y - 0.4, 0.8), color=colors(names.index(name) % 10))
        axis.set_yticks(range(len(tracks)), [t.removeprefix("unit ") for t in tracks], fontsize=7)
        axis.invert_yaxis()
        axis.set_xlabel("time since the first CTA started on SM 0 (us)")
        axis.set_title(titles[algo], fontsize=9)
        handles = [plt.Rectangle((0, 0), 1, 1, color=colors(i % 10)) for i in range(len(names))]
        axis.legend(handles, names, fontsize=6, loc="upper right", ncol=len(names))
    figure.tight_layout()
    figure.savefig(png_path, dpi=110)
    plt.close(figure)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    parser.add_argument("--window", type=float, default=20.0, help="microseconds of the timeline to draw")
    args = parser.parse_args(argv)
    rows: list[dict[str, object]] = []
    titles = {}
    for algo, arch_name in CASES.items():
        trace = Trace(sms=(0,))
        p = problem(args.quick)
        result = simulate(load_arch(arch_name), algo, p, mode="exact", trace=trace)
        args.out.mkdir(parents=True, exist_ok=True)
        result.write_trace(args.out / f"timeline_{algo}.json")
        rows += spans_to_rows(algo, result.spans, result.clock_hz, args.window)
        busy = ", ".join(f"{u} {f:.0%}" for u, f in sorted(result.busy.items(), key=lambda i: -i[1])[:3])
        titles[algo] = (
            f"{algo} on {arch_name}, SM 0, first {args.window:g} us "
            f"({result.tflops:.0f} TFLOP/s; busiest: {busy}; bound: {result.bottleneck})"
        )
    csv_path = write_csv(args.out / "timeline.csv", rows)
    png_path = args.out / "timeline.png"
    plot(csv_path, png_path, titles)
    print(f"wrote {csv_path}, {png_path} and the Chrome traces timeline_<algo>.json")


if __name__ == "__main__":
    main()
