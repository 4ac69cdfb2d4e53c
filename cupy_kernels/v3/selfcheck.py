"""Compile, check and time the v3 (FA3) forward on the GPU: ``python -m cupy_kernels.v3.selfcheck --out DIR [--quick]``.

1. Compiles every instantiation (d = 64, 128; causal or not; ping-pong on/off; intra-warpgroup overlap on/off)
   in one NVRTC call for sm_90a.
2. Correctness on small random bf16 inputs (odd and partial-tile seqlens, causal and not, every variant) against
   ``algorithms.reference`` with the tolerance rule of ``cupy_kernels.selfcheck`` (its functions, imported),
   outputs NaN-poisoned before each launch. Results: ``DIR/correctness_v3.csv``.
3. Times every variant on the sweep of ``cupy_kernels.selfcheck`` (d = 64, 128; N = 512 .. 16k at 16k tokens;
   causal and not), outputs poisoned and L2 flushed before every run, the last run checked on a slice as
   there. ``probe_clock_mhz`` is the SM clock inside the timed runs, counted by ``common.ClockTrace`` beside
   them (nvidia-smi's sampled clock overstates it under tensor load). Results: ``DIR/v3_kernels_h200.csv`` (the
   columns of ``kernels_h200.csv`` plus ``pingpong`` and ``intra_wg_overlap``).
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path
from typing import Any

from algorithms import reference
from cupy_kernels import common
from cupy_kernels import selfcheck as fa2_check
from cupy_kernels.common import cp
from cupy_kernels.v3 import launch

VARIANTS = [(pingpong, overlap) for pingpong in (True, False) for overlap in (True, False)]  # (pingpong, overlap)
CORRECTNESS_SHAPES = [(2, 3, 257), (1, 2, 640), (1, 1, 1), (1, 2, 128)]
CSV_FIELDS = [*fa2_check.CSV_FIELDS, "pingpong", "intra_wg_overlap"]


def compile_all() -> float:
    t0 = time.time()
    names = [
        launch.kernel_name(d, launch.fwd_config(d), causal, pingpong, overlap)
        for d in common.SUPPORTED_HEADDIMS
        for causal in (False, True)
        for pingpong, overlap in VARIANTS
    ]
    launch.precompile(names)
    return time.time() - t0


def check_correctness(out_dir: Path, quick: bool) -> bool:
    shapes = CORRECTNESS_SHAPES[:1] + CORRECTNESS_SHAPES[2:3] if quick else CORRECTNESS_SHAPES
    rows: list[dict[str, Any]] = []
    seed = 3000
    for (b, h, n), d, causal in [(s, d, c) for s in shapes for d in common.SUPPORTED_HEADDIMS for c in (False, True)]:
        seed += 1
        q, k, v = (common.random_tensor((b, h, n, d), "bf16", seed * 10 + i) for i in range(3))
        qh, kh, vh = (fa2_check.host(x) for x in (q, k, v))
        ref_o, ref_lse = reference.forward(qh, kh, vh, causal=causal)
        base_o, base_lse = fa2_check.baseline_forward(qh, kh, vh, causal, d**-0.5, "bf16")
        for pingpong, overlap in VARIANTS:
            o = cp.empty_like(q)
            lse = cp.empty((b, h, n), dtype=cp.float32)
            common.poison(o, lse)
            launch.forward(q, k, v, causal=causal, pingpong=pingpong, intra_wg_overlap=overlap, out=(o, lse))
            for tensor, got, ref, base in (("o", o, ref_o, base_o), ("lse", lse, ref_lse, base_lse)):
                rows.append(
                    {
                        "kernel": "v3",
                        "pingpong": pingpong,
                        "intra_wg_overlap": overlap,
                        "batch": b,
                        "heads": h,
                        "seqlen": n,
                        "headdim": d,
                        "causal": causal,
                        "tensor": tensor,
                        **fa2_check.compare(fa2_check.host(got), ref, base),
                    }
                )
    with open(out_dir / "correctness_v3.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    failed = [r for r in rows if not r["ok"]]
    print(f"correctness: {len(rows) - len(failed)}/{len(rows)} checks pass", flush=True)
    for r in failed:
        print("  FAIL", r, flush=True)
    return not failed


def time_config(writer: Any, facts: dict[str, Any], clock: common.ClockSampler, trace: common.ClockTrace,
                flush: Any, n: int, d: int, causal: bool, seed: int) -> list[dict[str, Any]]:  # fmt: skip
    b, h = fa2_check.TOKENS // n, fa2_check.HIDDEN // d
    q, k, v = (common.random_tensor((b, h, n, d), "bf16", seed + i) for i in range(3))
    rows = min(n, fa2_check.SLICE_ROWS)
    qs, ks, vs = (fa2_check.host(x[:1, :1]) for x in (q, k, v))
    qs = qs[:, :, n - rows :]
    ref_o, ref_lse = reference.forward(qs, ks, vs, causal=causal)
    base_o, base_lse = fa2_check.baseline_forward(qs, ks, vs, causal, d**-0.5, "bf16")
    flops = common.attention_flops(b, h, n, d, causal, "fwd")
    config = launch.fwd_config(d)
    o = cp.empty_like(q)
    lse = cp.empty((b, h, n), dtype=cp.float32)
    out = []
    for pingpong, overlap in VARIANTS:
        timing = common.time_gpu(
            lambda pingpong=pingpong, overlap=overlap: launch.forward(
                q, k, v, causal, pingpong=pingpong, intra_wg_overlap=overlap, out=(o, lse)
            ),
            before=lambda: common.poison(o, lse),
            flush=flush,
            clock=trace,
        )
        if bool(cp.isnan(common.to_float32(o)).any()) or bool(cp.isnan(lse).any()):
            check = {"max_abs_err": float("nan"), "rel_err": float("nan"), "ok": False}
        else:
            got_o, got_lse = fa2_check.host(o[:1, :1, n - rows :]), fa2_check.host(lse[:1, :1, n - rows :])
            c_o, c_lse = fa2_check.compare(got_o, ref_o, base_o), fa2_check.compare(got_lse, ref_lse, base_lse)
            check = {"max_abs_err": c_o["max_abs_err"], "rel_err": c_o["rel_err"], "ok": c_o["ok"] and c_lse["ok"]}
        row = {
            "gpu_name": facts["gpu_name"],
            "sm_clock_mhz": f"{clock.median_between(timing.t_start, timing.t_end):.0f}",
            "max_sm_clock_mhz": facts["max_sm_clock_mhz"],
            "driver": facts["driver"],
            "kernel": "v3",
            "pass": "fwd",
            "batch": b,
            "heads": h,
            "seqlen": n,
            "headdim": d,
            "causal": causal,
            "dtype": "bf16",
            "block_m": config.block_m,
            "block_n": config.block_n,
            "warps": config.warps,
            "stages": config.stages,
            "time_ms_median": f"{timing.median_ms:.5f}",
            "time_ms_p10": f"{timing.p10_ms:.5f}",
            "time_ms_p90": f"{timing.p90_ms:.5f}",
            "runs": timing.runs,
            "tflops": f"{flops / timing.median_ms / 1e9:.2f}",
            "max_abs_err": f"{check['max_abs_err']:.3e}",
            "rel_err": f"{check['rel_err']:.3e}",
            "ok": check["ok"],
            "pingpong": pingpong,
            "intra_wg_overlap": overlap,
            "probe_clock_mhz": common.format_mhz(timing.probe_clock_mhz),
        }
        writer.writerow(row)
        out.append(row)
        print(
            f"  v3 d={d:3d} N={n:5d} causal={causal!s:5s} pingpong={pingpong!s:5s} overlap={overlap!s:5s} "
            f"{timing.median_ms:9.3f} ms {row['tflops']:>7s} TFLOP/s  smi {row['sm_clock_mhz']} MHz  "
            f"probe {row['probe_clock_mhz']} MHz  ok={row['ok']}",
            flush=True,
        )
    cp.get_default_memory_pool().free_all_blocks()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="directory for the CSV files")
    parser.add_argument("--quick", action="store_true", help="fewer shapes: a smoke test")
    parser.add_argument("--skip-sweep", action="store_true", help="compile and check correctness only")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    facts = common.gpu_facts()
    print("gpu:", facts, flush=True)
    print(f"compiled every v3 instantiation in {compile_all():.1f} s", flush=True)
    correct = check_correctness(args.out, args.quick)
    if args.skip_sweep:
        return 0 if correct else 1
    flush = common.L2Flusher()
    clock = common.ClockSampler()
    trace = common.ClockTrace()
    rows: list[dict[str, Any]] = []
    seqlens = (512, 4096) if args.quick else fa2_check.SEQLENS
    try:
        with open(args.out / "v3_kernels_h200.csv", "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=CSV_FIELDS)
            writer.writeheader()
            for d in common.SUPPORTED_HEADDIMS:
                for n in seqlens:
                    for causal in (False, True):
                        rows += time_config(writer, facts, clock, trace, flush, n, d, causal, 7 * n + d + int(causal))
                        f.flush()
    finally:
        clock.close()
    bad = [r for r in rows if r["ok"] is False]
    print(f"sweep: {len(rows)} rows, {len(bad)} not ok; facts: {common.gpu_facts()}")
    return 0 if correct and not bad else 1


if __name__ == "__main__":
    sys.exit(main())
