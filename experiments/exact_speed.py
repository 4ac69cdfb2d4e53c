"""Wall time of `simgpu run --exact` for issue 4's predictions (target: under 10 s each).

Every arch (a100, h100, h200, b200) x algorithm (standard, v1, v2) x pass (fwd, bwd, fwd_bwd) at one shape of the
papers' sweep that the issue's level predictions use: 16k tokens at seqlen 1024 (batch 16), hidden 2048 (32 heads),
head dim 64, bf16, not causal. Each case runs the CLI in a subprocess, as a user would, and records the process's
wall time (start-up and imports included) and the simulator's own `sim_wall_s` from the JSON. Wall times depend on
the machine and its load; the 2-core development machine these were measured on was shared with other work.
Writes `exact_speed.csv`, then `exact_speed.png` (wall time per case, the 10 s target drawn). `--quick`: a100 only,
seqlen 256 and batch 4, forward only (a smoke test).
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import time
from pathlib import Path

from experiments._common import parse_args, print_row, save

ARCHS = ("a100", "h100", "h200", "b200")
ALGOS = ("standard", "v1", "v2")
PASSES = ("fwd", "bwd", "fwd_bwd")
TARGET_S = 10.0
SHAPE = {"batch": 16, "heads": 32, "seqlen": 1024, "headdim": 64}
QUICK_SHAPE = {"batch": 4, "heads": 32, "seqlen": 256, "headdim": 64}


def command(arch: str, algo: str, pass_: str, shape: dict[str, int]) -> list[str]:
    """`simgpu run ... --exact --json` through this interpreter, so the venv's package is the one timed."""
    sizes = [f"--{name}={value}" for name, value in shape.items()]
    run = ["run", f"--arch={arch}", f"--algo={algo}", f"--pass={pass_}", *sizes, "--exact", "--json"]
    return [sys.executable, "-c", "from simgpu.cli import main; main()", *run]


def run(quick: bool) -> list[dict[str, object]]:
    archs, passes, shape = (("a100",), ("fwd",), QUICK_SHAPE) if quick else (ARCHS, PASSES, SHAPE)
    rows = []
    for arch in archs:
        for algo in ALGOS:
            for pass_ in passes:
                start = time.perf_counter()
                done = subprocess.run(command(arch, algo, pass_, shape), capture_output=True, text=True, check=False)
                wall_s = time.perf_counter() - start
                # A failed run (the CLI's one-line error, e.g. out of memory) is a row of its own, not a crash.
                result = json.loads(done.stdout) if done.returncode == 0 else {}
                rows.append(
                    {
                        "arch": arch,
                        "algo": algo,
                        "pass": pass_,
                        **shape,
                        "wall_s": wall_s,
                        "sim_wall_s": result.get("sim_wall_s", ""),
                        "over_target": wall_s > TARGET_S,
                        "tflops": result.get("tflops", ""),
                        "error": "" if result else " ".join(done.stderr.strip().splitlines()[-1:]),
                    }
                )
    return rows


def plot(csv_path: Path, png_path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with csv_path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    labels = [f"{r['arch']} {r['algo']} {r['pass']}" for r in rows]
    walls = [float(r["wall_s"]) for r in rows]
    fig, ax = plt.subplots(figsize=(8, max(3.0, 0.22 * len(rows))))
    ax.barh(range(len(rows)), walls, color=["tab:red" if w > TARGET_S else "tab:blue" for w in walls])
    ax.axvline(TARGET_S, color="black", linestyle="--", label=f"{TARGET_S:g} s target")
    ax.set_yticks(range(len(rows)), labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("wall time of `simgpu run --exact` (s)")
    r0 = rows[0]
    ax.set_title(f"exact mode, batch {r0['batch']}, {r0['heads']} heads, N={r0['seqlen']}, d={r0['headdim']}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)
    return png_path


def main(argv: list[str] | None = None) -> None:
    args = parse_args(__doc__, "a100, seqlen 256, batch 4, forward only", argv)
    rows = run(args.quick)
    for row in rows:
        print_row(row)
    save(rows, args.out, "exact_speed", plot)


if __name__ == "__main__":
    main()
