"""Compile, check and time every CuPy kernel on the GPU: ``python -m cupy_kernels.selfcheck --out DIR [--quick]``.

1. Compiles every template instantiation the sweep uses (one NVRTC call per source file).
2. Correctness on small random inputs (causal and not, odd seqlen, d = 64 and 128, bf16; fp16 for v2) against
   ``algorithms.reference`` (float64). The tolerance is FlashAttention's rule: a kernel's max abs error must
   be at most 2x that of standard attention computed at the input precision (``baseline_*``: fp32 products
   of 16-bit inputs, S, P and dS rounded to 16 bits as a framework stores them) plus ATOL, and in addition
   the relative Frobenius error ||x - ref|| / ||ref|| must be at most REL_TOL (bf16 has 8 mantissa bits:
   one rounding is 2^-9 relative, so 1e-2 leaves room for accumulation but not for a wrong tile).
   Results: ``DIR/correctness.csv``.
3. Times each kernel on issue 5's sweep (d = 64, 128; N = 512 .. 16k at 16k tokens, batch = 16384 / N, heads =
   2048 / d; causal and not; bf16), with outputs poisoned and L2 flushed before every run, and checks the last
   run's output on a slice: the last SLICE_ROWS query rows of (batch 0, head 0) against the reference (the
   reference aligns causal masks bottom-right, so a query slice is exact). For the backward the slice checks
   dQ only (dK, dV need every query; they are checked in step 2). ``probe_clock_mhz``: the SM clock inside the
   timed runs, counted by ``common.ClockTrace`` beside them. Results: ``DIR/kernels_h200.csv``. ``--kernels
   v2`` times only the kernels named (v2: its forward and backward).
4. With ``--ncu``: DRAM and L2 bytes of the standard kernels and the v2 forward on a few shapes, read by
   Nsight Compute with ``--clock-control none`` (the clocks are left as found): ``DIR/ncu_bytes.csv``.
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

from algorithms import reference
from cupy_kernels import common
from cupy_kernels.common import TileConfig, cp
from cupy_kernels.standard import launch as standard
from cupy_kernels.v1 import launch as v1
from cupy_kernels.v2 import launch as v2

ATOL = 1e-3
REL_TOL = 1e-2
SLICE_ROWS = 128
TOKENS = 16384
HIDDEN = 2048
SEQLENS = (512, 1024, 2048, 4096, 8192, 16384)
STANDARD_MAX_S_BYTES = 16 * 2**30  # S (and P) of the standard kernels must fit this
CSV_FIELDS = [
    "gpu_name",
    "sm_clock_mhz",
    "max_sm_clock_mhz",
    "driver",
    "kernel",
    "pass",
    "batch",
    "heads",
    "seqlen",
    "headdim",
    "causal",
    "dtype",
    "block_m",
    "block_n",
    "warps",
    "stages",
    "time_ms_median",
    "time_ms_p10",
    "time_ms_p90",
    "runs",
    "tflops",
    "max_abs_err",
    "rel_err",
    "ok",
    "probe_clock_mhz",
]

FORWARDS: dict[str, Callable[..., tuple[Any, Any]]] = {
    "standard": standard.forward,
    "v1": v1.forward,
    "v2": v2.forward,
}
FWD_CONFIGS: dict[str, Callable[[int], TileConfig]] = {
    "standard": standard.fwd_config,
    "v1": v1.fwd_config,
    "v2": v2.fwd_config,
}


# --------------------------------------------------------------------------------------------------------
# Low-precision baseline (what a framework's standard attention computes) and comparison
# --------------------------------------------------------------------------------------------------------


def round16(x: np.ndarray, dtype: str) -> np.ndarray:
    """Round float values to bf16 or fp16 and back to float32."""
    target = ml_dtypes.bfloat16 if dtype == "bf16" else np.float16
    return np.asarray(x, dtype=np.float32).astype(target).astype(np.float32)


def _baseline_p(q: np.ndarray, k: np.ndarray, causal: bool, scale: float, dtype: str) -> np.ndarray:
    s = round16(scale * (q @ np.swapaxes(k, -1, -2)), dtype)  # (B, H, Nq, Nk)
    if causal:
        s = np.where(reference.causal_mask(q.shape[2], k.shape[2]), s, -np.inf)
    s = s - s.max(axis=-1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(axis=-1, keepdims=True)  # (B, H, Nq, Nk), fp32


def baseline_forward(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool, scale: float, dtype: str):
    """Standard attention at the input precision: S rounded to 16 bits (as a framework stores it), softmax
    and LSE in fp32 from that S, P rounded, O = P V in fp32 rounded."""
    s = round16(scale * (q @ np.swapaxes(k, -1, -2)), dtype)  # (B, H, Nq, Nk)
    if causal:
        s = np.where(reference.causal_mask(q.shape[2], k.shape[2]), s, -np.inf)
    m = s.max(axis=-1, keepdims=True)  # (B, H, Nq, 1)
    e = np.exp(s - m)
    p = e / e.sum(axis=-1, keepdims=True)  # (B, H, Nq, Nk)
    o = round16(round16(p, dtype) @ v, dtype)  # (B, H, Nq, d)
    lse = m[..., 0] + np.log(e.sum(axis=-1))  # (B, H, Nq)
    return o, lse


def baseline_backward(q, k, v, do, causal: bool, scale: float, dtype: str):
    p = _baseline_p(q, k, causal, scale, dtype)  # (B, H, Nq, Nk)
    o = round16(round16(p, dtype) @ v, dtype)
    dp = do @ np.swapaxes(v, -1, -2)
    ds = round16(p * (dp - (do * o).sum(axis=-1, keepdims=True)), dtype)
    dq = round16(scale * (ds @ k), dtype)
    dk = round16(scale * (np.swapaxes(ds, -1, -2) @ q), dtype)
    dv = round16(np.swapaxes(round16(p, dtype), -1, -2) @ do, dtype)
    return dq, dk, dv


def compare(got: np.ndarray, ref: np.ndarray, base: np.ndarray) -> dict[str, Any]:
    """Max abs error, the baseline's, relative Frobenius error, and the FA-style verdict."""
    finite = bool(np.isfinite(got).all())
    err = float(np.abs(got - ref).max()) if finite else float("inf")
    base_err = float(np.abs(base - ref).max())
    rel = float(np.linalg.norm(got - ref) / np.linalg.norm(ref)) if finite else float("inf")
    ok = finite and err <= 2 * base_err + ATOL and rel <= REL_TOL
    return {"max_abs_err": err, "base_max_abs_err": base_err, "rel_err": rel, "ok": ok}


def host(x: Any) -> np.ndarray:
    """A CuPy 16-bit or fp32 tensor as a NumPy float32 array."""
    return cp.asnumpy(common.to_float32(x) if x.dtype != cp.float32 else x)


# --------------------------------------------------------------------------------------------------------
# Step 1: compilation
# --------------------------------------------------------------------------------------------------------


def compile_all() -> float:
    """Compile the sweep's instantiations (bf16) and the fp16 ones of v2; return the seconds it took."""
    t0 = time.time()
    names: dict[Path, set[str]] = {standard.SOURCE: set(), v1.SOURCE: set(), v2.FWD_SOURCE: set(), v2.BWD_SOURCE: set()}
    for d in common.SUPPORTED_HEADDIMS:
        for causal in (False, True):
            names[standard.SOURCE].update(standard.kernel_names(d, standard.fwd_config(d), causal, True))
            names[v1.SOURCE].add(v1.kernel_name(d, v1.fwd_config(d), causal, True))
            for bf16 in (True, False):
                names[v2.FWD_SOURCE].add(v2.fwd_name(d, v2.fwd_config(d), causal, bf16))
                names[v2.BWD_SOURCE].update(v2.bwd_names(d, v2.bwd_config(d), causal, bf16))
    for path, batch in names.items():
        common.precompile(path, batch)
    return time.time() - t0


# --------------------------------------------------------------------------------------------------------
# Step 2: correctness on small shapes
# --------------------------------------------------------------------------------------------------------


def check_correctness(out_dir: Path, quick: bool) -> bool:
    shapes = [(2, 3, 257), (1, 2, 640)] if not quick else [(2, 3, 257)]
    rows: list[dict[str, Any]] = []
    seed = 1000
    cases = [(shape, d, causal, "bf16") for shape in shapes for d in (64, 128) for causal in (False, True)]
    cases += [((1, 2, 200), d, causal, "fp16") for d in (64, 128) for causal in (False, True)]
    for (b, h, n), d, causal, dtype in cases:
        seed += 1
        q, k, v, do = (common.random_tensor((b, h, n, d), dtype, seed * 10 + i) for i in range(4))
        qh, kh, vh, doh = (host(x) for x in (q, k, v, do))
        scale = d**-0.5
        ref_o, ref_lse = reference.forward(qh, kh, vh, causal=causal)
        base_o, base_lse = baseline_forward(qh, kh, vh, causal, scale, dtype)
        kernels = FORWARDS if dtype == "bf16" else {"v2": v2.forward}
        o_v2 = lse_v2 = None
        for name, fwd in kernels.items():
            o = cp.empty_like(q)
            lse = cp.empty((b, h, n), dtype=cp.float32)
            common.poison(o, lse)
            fwd(q, k, v, causal=causal, out=(o, lse))
            for tensor, got, ref, base in (("o", o, ref_o, base_o), ("lse", lse, ref_lse, base_lse)):
                rows.append(
                    {
                        "kernel": name,
                        "pass": "fwd",
                        "batch": b,
                        "heads": h,
                        "seqlen": n,
                        "headdim": d,
                        "causal": causal,
                        "dtype": dtype,
                        "tensor": tensor,
                        **compare(host(got), ref, base),
                    }
                )
            if name == "v2":
                o_v2, lse_v2 = o, lse
        ref_grads = reference.backward(qh, kh, vh, ref_o, ref_lse, doh, causal=causal)
        base_grads = baseline_backward(qh, kh, vh, doh, causal, scale, dtype)
        grads = [cp.empty_like(q) for _ in range(3)]
        common.poison(*grads)
        v2.backward(q, k, v, o_v2, lse_v2, do, causal=causal, out=tuple(grads))
        for tensor, got, ref, base in zip(("dq", "dk", "dv"), grads, ref_grads, base_grads, strict=True):
            rows.append(
                {
                    "kernel": "v2",
                    "pass": "bwd",
                    "batch": b,
                    "heads": h,
                    "seqlen": n,
                    "headdim": d,
                    "causal": causal,
                    "dtype": dtype,
                    "tensor": tensor,
                    **compare(host(got), ref, base),
                }
            )
    with open(out_dir / "correctness.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    failed = [r for r in rows if not r["ok"]]
    print(f"correctness: {len(rows) - len(failed)}/{len(rows)} checks pass")
    for r in failed:
        print(
            "  FAIL",
            {
                key: r[key]
                for key in (
                    "kernel",
                    "pass",
                    "seqlen",
                    "headdim",
                    "causal",
                    "dtype",
                    "tensor",
                    "max_abs_err",
                    "base_max_abs_err",
                    "rel_err",
                )
            },
        )
    return not failed


# --------------------------------------------------------------------------------------------------------
# Step 3: timing sweep
# --------------------------------------------------------------------------------------------------------


class Sweep:
    def __init__(self, out_dir: Path, facts: dict[str, Any]) -> None:
        self.facts = facts
        self.flush = common.L2Flusher()
        self.clock = common.ClockSampler()
        self.trace = common.ClockTrace()
        self.file = open(out_dir / "kernels_h200.csv", "w", newline="")  # noqa: SIM115 - closed in close()
        self.writer = csv.DictWriter(self.file, fieldnames=CSV_FIELDS)
        self.writer.writeheader()
        self.rows: list[dict[str, Any]] = []

    def close(self) -> None:
        self.clock.close()
        self.file.close()

    def record(
        self,
        kernel: str,
        pass_: str,
        shape: tuple[int, int, int, int],
        causal: bool,
        config: TileConfig,
        timing: common.Timing,
        flops: float | None,
        check: dict[str, Any],
    ) -> None:
        b, h, n, d = shape
        row = {
            "gpu_name": self.facts["gpu_name"],
            "sm_clock_mhz": f"{self.clock.median_between(timing.t_start, timing.t_end):.0f}",
            "max_sm_clock_mhz": self.facts["max_sm_clock_mhz"],
            "driver": self.facts["driver"],
            "kernel": kernel,
            "pass": pass_,
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
            "tflops": "" if flops is None else f"{flops / timing.median_ms / 1e9:.2f}",
            "max_abs_err": "" if not check else f"{check['max_abs_err']:.3e}",
            "rel_err": "" if not check else f"{check['rel_err']:.3e}",
            "ok": "" if not check else check["ok"],
            "probe_clock_mhz": common.format_mhz(timing.probe_clock_mhz),
        }
        self.writer.writerow(row)
        self.file.flush()
        self.rows.append(row)
        print(
            f"  {kernel:17s} {pass_} d={d:3d} N={n:5d} causal={causal!s:5s} {timing.median_ms:9.3f} ms "
            f"{row['tflops']:>7s} TFLOP/s  smi {row['sm_clock_mhz']} MHz  probe {row['probe_clock_mhz']} MHz  "
            f"ok={row['ok']}",
            flush=True,
        )

    def time_standard(
        self, q: Any, k: Any, v: Any, o: Any, lse: Any, causal: bool, config: TileConfig, scale: float
    ) -> common.Timing:
        """Time the three standard kernels one by one (rows without FLOPs), then together; return the latter."""
        b, h, n = q.shape[:3]
        sp_shape = (b, h, n, standard.padded_seqlen(n))
        s, p = cp.empty(sp_shape, cp.uint16), cp.empty(sp_shape, cp.uint16)
        parts = {
            "standard_qk": (lambda: standard.qk(q, k, s, causal, config, scale), (s,)),
            "standard_softmax": (lambda: standard.softmax(s, p, lse), (p, lse)),
            "standard_pv": (lambda: standard.pv(p, v, o, config), (o,)),
        }
        for part, (launch, outs) in parts.items():
            timing = common.time_gpu(
                launch, before=lambda outs=outs: common.poison(*outs), flush=self.flush, clock=self.trace
            )
            self.record(part, "fwd", q.shape, causal, config, timing, None, {})
        return common.time_gpu(
            lambda: standard.forward(q, k, v, causal, out=(o, lse), scratch=(s, p)),
            before=lambda: common.poison(o, lse, s, p),
            flush=self.flush,
            clock=self.trace,
        )

    def run_config(self, n: int, d: int, causal: bool, seed: int, kernels: tuple[str, ...] = tuple(FORWARDS)) -> None:
        """Time the forward of each of `kernels` (names of FORWARDS) on one configuration, and v2's backward where
        v2 is among them."""
        b, h = TOKENS // n, HIDDEN // d
        shape = (b, h, n, d)
        q, k, v, do = (common.random_tensor(shape, "bf16", seed + i) for i in range(4))
        rows = min(n, SLICE_ROWS)
        qs, ks, vs, dos = (host(x[:1, :1]) for x in (q, k, v, do))
        qs, dos = qs[:, :, n - rows :], dos[:, :, n - rows :]
        scale = d**-0.5
        ref_o, ref_lse = reference.forward(qs, ks, vs, causal=causal)
        base_o, base_lse = baseline_forward(qs, ks, vs, causal, scale, "bf16")
        fwd_flops = common.attention_flops(b, h, n, d, causal, "fwd")

        def check_fwd(o: Any, lse: Any) -> dict[str, Any]:
            if bool(cp.isnan(common.to_float32(o)).any()) or bool(cp.isnan(lse).any()):
                return {"max_abs_err": float("nan"), "rel_err": float("nan"), "ok": False}
            got_o, got_lse = host(o[:1, :1, n - rows :]), host(lse[:1, :1, n - rows :])
            c_o, c_lse = compare(got_o, ref_o, base_o), compare(got_lse, ref_lse, base_lse)
            return {"max_abs_err": c_o["max_abs_err"], "rel_err": c_o["rel_err"], "ok": c_o["ok"] and c_lse["ok"]}

        o = cp.empty_like(q)
        lse = cp.empty((b, h, n), dtype=cp.float32)
        sp_bytes = b * h * n * standard.padded_seqlen(n) * 2
        for name in kernels:
            fwd, config = FORWARDS[name], FWD_CONFIGS[name](d)
            if name == "standard":
                if sp_bytes > STANDARD_MAX_S_BYTES:
                    continue
                timing = self.time_standard(q, k, v, o, lse, causal, config, scale)
            else:
                timing = common.time_gpu(
                    lambda fwd=fwd: fwd(q, k, v, causal, out=(o, lse)),
                    before=lambda: common.poison(o, lse),
                    flush=self.flush,
                    clock=self.trace,
                )
            self.record(name, "fwd", shape, causal, config, timing, fwd_flops, check_fwd(o, lse))
            cp.get_default_memory_pool().free_all_blocks()

        if "v2" not in kernels:
            return
        # Backward from the v2 forward's outputs, as FlashAttention's own tests do.
        v2.forward(q, k, v, causal, out=(o, lse))
        grads = tuple(cp.empty_like(q) for _ in range(3))
        timing = common.time_gpu(
            lambda: v2.backward(q, k, v, o, lse, do, causal, out=grads),
            before=lambda: common.poison(*grads),
            flush=self.flush,
            clock=self.trace,
        )
        ref_dq = reference.backward(qs, ks, vs, ref_o, ref_lse, dos, causal=causal)[0]
        base_dq = baseline_backward(qs, ks, vs, dos, causal, scale, "bf16")[0]
        if any(bool(cp.isnan(common.to_float32(g)).any()) for g in grads):
            check = {"max_abs_err": float("nan"), "rel_err": float("nan"), "ok": False}
        else:
            check = compare(host(grads[0][:1, :1, n - rows :]), ref_dq, base_dq)
        self.record(
            "v2",
            "bwd",
            shape,
            causal,
            v2.bwd_config(d),
            timing,
            common.attention_flops(b, h, n, d, causal, "bwd"),
            check,
        )
        cp.get_default_memory_pool().free_all_blocks()


NCU_METRICS = "dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum"
NCU_SHAPES = [(d, n, causal) for d in (64, 128) for n in (1024, 4096) for causal in (False, True)]


def ncu_target(labels: Path) -> None:
    """Launch standard (3 kernels) and v2 forward once per NCU_SHAPES entry; write the launch order."""
    with open(labels, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["kernel", "batch", "heads", "seqlen", "headdim", "causal"])
        for d, n, causal in NCU_SHAPES:
            b, h = TOKENS // n, HIDDEN // d
            q, k, v = (common.random_tensor((b, h, n, d), "bf16", i) for i in range(3))
            standard.forward(q, k, v, causal)
            v2.forward(q, k, v, causal)
            for kernel in ("standard_qk", "standard_softmax", "standard_pv", "v2"):
                writer.writerow([kernel, b, h, n, d, causal])
        cp.cuda.runtime.deviceSynchronize()


def run_ncu(out_dir: Path) -> None:
    """Profile `ncu_target` with Nsight Compute (clocks left alone) and write DIR/ncu_bytes.csv."""
    labels = out_dir / "ncu_launches.csv"
    cmd = ["ncu", "--clock-control", "none", "--kernel-name", "regex:fa2_fwd|std_", "--metrics", NCU_METRICS,
           "--csv", "--print-units", "base", sys.executable, "-m", "cupy_kernels.selfcheck", "--out", str(out_dir),
           "--ncu-target", str(labels)]  # fmt: skip
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    metrics = common.ncu_metrics(result.stdout)
    if result.returncode != 0 or metrics is None:
        print("ncu failed:", result.returncode, result.stdout[-2000:], result.stderr[-2000:])
        return
    with open(labels) as f:
        launches = list(csv.DictReader(f))
    with open(out_dir / "ncu_bytes.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow([*launches[0].keys(), *NCU_METRICS.split(",")])
        for launch, measured in zip(launches, metrics, strict=True):
            writer.writerow([*launch.values(), *(f"{measured[m]:.0f}" for m in NCU_METRICS.split(","))])
    print(f"ncu: {len(launches)} kernels profiled -> {out_dir / 'ncu_bytes.csv'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="directory for the CSV files")
    parser.add_argument("--quick", action="store_true", help="fewer shapes: a smoke test")
    parser.add_argument("--skip-sweep", action="store_true", help="compile and check correctness only")
    parser.add_argument("--ncu", action="store_true", help="also read DRAM/L2 bytes with Nsight Compute")
    parser.add_argument(
        "--kernels", nargs="+", choices=tuple(FORWARDS), default=tuple(FORWARDS), help="the kernels the sweep times"
    )
    parser.add_argument("--ncu-target", type=Path, help=argparse.SUPPRESS)  # the program ncu profiles
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.ncu_target is not None:
        ncu_target(args.ncu_target)
        return 0

    facts = common.gpu_facts()
    print("gpu:", facts, flush=True)
    print(f"compiled every kernel in {compile_all():.1f} s", flush=True)
    correct = check_correctness(args.out, args.quick)
    if args.skip_sweep:
        return 0 if correct else 1
    sweep = Sweep(args.out, facts)
    seqlens = (512, 2048) if args.quick else SEQLENS
    try:
        for d in common.SUPPORTED_HEADDIMS:
            for n in seqlens:
                for causal in (False, True):
                    sweep.run_config(n, d, causal, seed=7 * n + d + int(causal), kernels=tuple(args.kernels))
    finally:
        sweep.close()
    if args.ncu:
        run_ncu(args.out)
    bad = [r for r in sweep.rows if r["ok"] is False]
    print(f"sweep: {len(sweep.rows)} rows, {len(bad)} not ok; facts: {common.gpu_facts()}")
    return 0 if correct and not bad else 1


if __name__ == "__main__":
    sys.exit(main())
