"""Where fast mode's time goes: cProfile of one prediction per case (after a warm-up run), the time of each phase of
`simgpu.fast` (cumulative seconds of the function that runs it) and of the work that crosses phases (building ops
in the schedules, folding tiles, the L2 replay, the engine), per case and summed.

`python -m benchmarks.profile_fast [--out DIR] [--name NAME]` writes `NAME.txt` (default `simspeed_profile.txt`).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time
from pathlib import Path

from simgpu import Problem, load_arch, native, simulate

# (arch, algo, pass, seqlen): the benchmark's shapes (16k tokens, 16 heads, d = 128), one per algorithm and pass at
# 1k, and the long sequences whose cost grew with seqlen.
CASES = (
    ("h100", "standard", "fwd", 1024),
    ("h100", "standard", "bwd", 1024),
    ("h100", "v1", "fwd", 1024),
    ("h100", "v1", "bwd", 1024),
    ("h100", "v2", "fwd", 1024),
    ("h100", "v2", "bwd", 1024),
    ("h200", "v3", "fwd", 1024),
    ("h200", "v3", "bwd", 1024),
    ("b200", "v4", "fwd", 1024),
    ("b200", "v4", "bwd", 1024),
    ("h100", "v2", "fwd", 131072),
    ("h100", "v2", "bwd", 131072),
    ("h200", "v3", "fwd", 131072),
    ("b200", "v4", "bwd", 131072),
)
# (label, file suffix, function name): phases of a fast-mode run, then work that crosses them. A phase that does not
# exist in the profiled code reads 0; a name matches with a leading underscore too, and "plan_kernel" also matches
# the "_plan" of the code before fast mode was split into modules.
PHASES = (
    ("schedule (build kernels)", "simgpu/api.py", "schedule"),
    ("plan (fold one tile per shape)", "", "plan_kernel"),
    ("replayed bytes (fold + L2 replay)", "", "replayed_bytes"),
    ("class costs (representative SMs)", "", "class_costs"),
    ("list schedule", "", "shared_schedule"),
    ("kernels run whole", "simgpu/fast_whole.py", "run_whole"),
)
CROSSING = (
    ("  fold_tile", "simgpu/fold.py", "fold_tile"),
    ("  L2 replay walk", "simgpu/replay.py", "replay"),
    ("  engine runs", "simgpu/engine.py", "run"),
)


def _seconds(table: pstats.Stats, suffix: str, name: str) -> float:
    """Cumulative seconds of the functions called `name` (or `_name`) in files ending with `suffix`, or compiled
    (`simgpu.native`) in the module of that file. cProfile sees a compiled function only where Python code calls
    it: calls from compiled code to compiled code (the crossing work inside the phases) are not seen."""
    total = 0.0
    names = (name, f"_{name}", "_plan") if name == "plan_kernel" else (name, f"_{name}")
    compiled = "<built-in method " + (suffix.removesuffix(".py").replace("/", ".") + "." if suffix else "simgpu.")
    for (path, _, function), row in table.stats.items():  # type: ignore[attr-defined]
        python = function in names and path.endswith(suffix or ".py")
        native_ = path == "~" and function.startswith(compiled) and function.rsplit(".", 1)[-1][:-1] in names
        if python or native_:
            total += row[3]
    return total


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("out/bench"))
    parser.add_argument("--name", default="simspeed_profile")
    args = parser.parse_args(argv)
    labels = [label for label, _, _ in PHASES + CROSSING]
    totals = dict.fromkeys(labels, 0.0)
    text = io.StringIO()
    header = "case".ljust(30) + "total_s".rjust(9) + "".join(label.strip()[:12].rjust(14) for label in labels)
    text.write(header + "\n")
    grand = 0.0
    for arch_name, algo, pass_, seqlen in CASES:
        arch = load_arch(arch_name)
        problem = Problem(max(1, 16384 // seqlen), 16, seqlen, 128, pass_=pass_)
        simulate(arch, algo, problem)  # warm-up: imports and first-call costs
        profile = cProfile.Profile()
        started = time.perf_counter()
        profile.enable()
        simulate(arch, algo, problem)
        profile.disable()
        wall = time.perf_counter() - started
        table = pstats.Stats(profile)
        row = [_seconds(table, suffix, name) for _, suffix, name in PHASES + CROSSING]
        for label, seconds in zip(labels, row, strict=True):
            totals[label] += seconds
        grand += wall
        name = f"{arch_name} {algo} {pass_} {seqlen}"
        text.write(name.ljust(30) + f"{wall:9.3f}" + "".join(f"{s:14.3f}" for s in row) + "\n")
    text.write("\nsummed over the cases (profiled seconds; cProfile slows Python code by about 1.5-2x):\n")
    if native.compiled():
        text.write("  (engine compiled, simgpu.native: work that compiled code calls in compiled code reads 0)\n")
    text.write(f"  {'total':40s} {grand:8.3f}\n")
    for label in labels:
        text.write(f"  {label:40s} {totals[label]:8.3f}  {totals[label] / grand:6.1%}\n")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{args.name}.txt").write_text(text.getvalue(), encoding="utf-8")
    print(text.getvalue())


if __name__ == "__main__":
    main()
