"""The A100 results the README quotes, at the session's base (6690ead, read with `git show`) and as re-run after its
two changes (the GEMM's ldmatrix beside its MMAs; mma.sync beside ldmatrix at full rate on the A100), all exact mode:
`python docs/results/session_65/a100_before_after.py > docs/results/session_65/a100_before_after.txt`."""

from __future__ import annotations

import csv
import io
import json
import subprocess
from pathlib import Path

BASE = "6690ead"
RESULTS = Path("docs/results")
PEAK_TFLOPS = 311.87  # the A100 file's bf16 peak: 2048 FLOP/clk/SM x 108 SMs x 1.41 GHz


def text(path: Path, at: str | None) -> str | None:
    if at is None:
        return path.read_text(encoding="utf-8")
    shown = subprocess.run(["git", "show", f"{at}:{path.as_posix()}"], capture_output=True, text=True, check=False)
    return shown.stdout if shown.returncode == 0 else None


def rows(path: Path, at: str | None) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text(path, at) or "")))


print("## v2 levels (docs/results/levels/v2_a100_*.json), TFLOP/s and % of peak")
for path in sorted((RESULTS / "levels").glob("v2_a100_*.json")):
    after = json.loads(text(path, None) or "{}")
    before_text = text(path, BASE)
    before = f"{json.loads(before_text)['tflops']:6.1f}" if before_text else "   new"
    share = after["tflops"] / PEAK_TFLOPS
    print(f"{path.stem:38s} {before} -> {after['tflops']:6.1f} ({share:.1%}), {after['bottleneck']}")

print("\n## v1 as FA1's released kernels (docs/results/v1_levels.csv), % of peak")
for old, new in zip(rows(RESULTS / "v1_levels.csv", BASE), rows(RESULTS / "v1_levels.csv", None), strict=True):
    shape = f"{new['shapes']:10s} {new['pass']:8s} N={new['seqlen']:5s}"
    print(f"{shape} {float(old['pct_peak']):5.1f} -> {float(new['pct_peak']):5.1f}, {new['bottleneck']}")

print("\n## GPT-2 medium fwd+bwd (docs/results/gpt2_medium.csv): HBM GB, ms")
for old, new in zip(rows(RESULTS / "gpt2_medium.csv", BASE), rows(RESULTS / "gpt2_medium.csv", None), strict=True):
    label = f"{new['algo']:8s} causal={new['causal']:5s} {new['options']:30s}"
    gb = f"{float(old['predicted_hbm_gb']):.2f} -> {float(new['predicted_hbm_gb']):.2f} GB"
    print(f"{label} {gb}, {float(old['predicted_ms']):.2f} -> {float(new['predicted_ms']):.2f} ms")

print("\n## FA1 Fig. 2 middle (docs/results/fa1_block_size.csv): HBM GB, ms")
blocks = RESULTS / "fa1_block_size.csv"
for old, new in zip(rows(blocks, BASE), rows(blocks, None), strict=True):
    gb = f"{float(old['hbm_gb']):.2f} -> {float(new['hbm_gb']):.2f} GB"
    print(f"B_c={new['block_n']:4s} {gb}, {float(old['runtime_ms']):.3f} -> {float(new['runtime_ms']):.3f} ms")
