"""Device probe: where every CTA of our FA3 forward kernel spends the time that does not scale with key tiles.

A fit of time per CTA wave as `a + b x key tiles` put the measured fixed cost `a` at 4804 / 8105 cycles (d = 64 /
128) against the model's ~2500 (validation/h200/README.md, "Our FA3 kernel's executed SASS"). This probe measures
it directly. `cupy_kernels/v3/fwd.cu` compiled with FA3_CTA_TRACE writes clock64() per CTA: its entry and SM id,
the producer's Q copies issued, and per consumer warpgroup (lane 0 of its first warp) Q ready, its first turn taken,
S_0's wgmmas issued (since the sixty-eighth session: the chip's S_0 lags the model's by ~220 cycles at both head
dimensions, `docs/results/session_68/cta_phases.txt`), S_0 ready, the last P V done and the epilogue's stores
issued. clock64 is a per-SM counter, so the time from a CTA's last stamp to the
next CTA's entry on the same SM (the drain of its stores, its exit and the next launch) is counted too.

Shapes (bf16, not causal, ping-pong and intra-warpgroup overlap on, as the validation's default variant):
- `idle`: one CTA, one key tile (B = H = 1, N = 128): a Q tile copied from HBM by an otherwise idle GPU;
- `wave1`: one wave of 132 CTAs, one key tile each (H = 132, N = 128): every SM copies its Q tile at once;
- `wave16`: one wave of 132 CTAs, 16 key tiles each (H = 132, N = 2048);
- the validation sweep's shapes N = 512, 2048, 8192 at 16k tokens (B = 16384 / N, H = 2048 / d): many waves.
Each shape runs with L2 flushed first, as in the timed validation; the plain and traced kernels are also timed
(CUDA events, L2 flushed, clock counted beside them) so that the cost of the stamps shows.

Writes v3_cta_timeline_h200.csv.gz (one row per CTA: shape, SM, stamps relative to its entry, the gap before
it on its SM) and v3_cta_timeline_summary_h200.csv (medians per shape, first CTAs on their SM and later ones
apart). Run on the GPU machine from the repository root: `PYTHONPATH=. python3 validation/probes/v3_cta_timeline.py
OUT`.

With `--shared` it runs one shape instead, where CTAs share K and V: B = 1, H = 16, N = 1024 (8 query tiles per head,
128 CTAs: one wave, every CTA alone on its SM), with L2 flushed first, so that a head's K and V come from HBM once
and its 8 CTAs ask for them at about the same time. Whether the CTA that asks first (in exact mode the one that
misses, the others hit) takes longer shows in the CTA's cycles by query tile (`cta % 8`, the grid's x). Writes
v3_cta_timeline_shared_h200.csv.gz and v3_cta_timeline_shared_summary_h200.csv.

With `--pingpong-both` every shape runs twice, with ping-pong on and off (the overlap on in both), so that the chip's
larger fixed cost per CTA without ping-pong at d = 128 (`docs/results/session_66/periods_base.txt`) shows by phase.
Every row gets a `pingpong` column. Writes v3_cta_timeline_pp_h200.csv.gz and v3_cta_timeline_pp_summary_h200.csv.
"""

from __future__ import annotations

import itertools
import statistics
import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common
from cupy_kernels.v3 import launch

TRACE_CTAS = 8192  # enough for every shape below (the largest grid: N = 512 at d = 64, 4 x 1024 CTAs)
CONSUMER_FIELDS = ("q_ready", "turn", "s0_issued", "s0", "loop", "epi")  # fwd.cu's CtaStamp order
FIELDS = ("sm", "entry", "q_issued", *(f"{s}_c{c}" for c in (0, 1) for s in CONSUMER_FIELDS))
REPEATS = 5  # the one-CTA shape is traced this many times (one run, one CTA each)


def shapes(d: int, shared: bool = False) -> list[tuple[str, int, int, int]]:
    """(name, batch, heads, seqlen) of every shape at head dimension d (`--shared`: the one shape of that mode)."""
    if shared:
        return [("shared", 1, 16, 1024)]
    sweep = [(f"n{n}", 16384 // n, 2048 // d, n) for n in (512, 2048, 8192)]
    return [("idle", 1, 1, 128), ("wave1", 1, 132, 128), ("wave16", 1, 132, 2048), *sweep]


def cta_rows(stamps: np.ndarray, ctas: int, key_tiles: int) -> list[dict[str, float]]:
    """One dict per CTA: its SM, stamps relative to its entry, and the gap from the previous CTA on its SM
    (from that CTA's last stamp to this one's entry; NaN for the first CTA on an SM)."""
    t = stamps[:ctas].astype(np.float64)
    rows: list[dict[str, float]] = []
    last_on_sm: dict[int, float] = {}
    for cta in np.argsort(t[:, 1], kind="stable"):  # by entry: per SM, in launch order
        sm = int(t[cta, 0])
        entry = t[cta, 1]
        end = max(t[cta, FIELDS.index("epi_c0")], t[cta, FIELDS.index("epi_c1")])
        row = {"cta": float(cta), "sm": float(sm), "first_on_sm": float(sm not in last_on_sm)}
        row["gap_before"] = entry - last_on_sm[sm] if sm in last_on_sm else float("nan")
        for i, name in enumerate(FIELDS[2:], start=2):
            row[name] = t[cta, i] - entry
        row["key_tiles"] = float(key_tiles)
        rows.append(row)
        last_on_sm[sm] = end
    return rows


def summarize(name: str, d: int, rows: list[dict[str, float]], plain_ms: float, traced_ms: float) -> dict[str, object]:
    """Medians per shape of the phases of a CTA (consumer 0 for the consumer's phases), first CTAs on their SM
    and later ones apart, and the gap between CTAs on an SM."""

    def med(values: list[float]) -> float:
        values = [v for v in values if not np.isnan(v)]
        return statistics.median(values) if values else float("nan")

    out: dict[str, object] = {"shape": name, "headdim": d, "ctas": len(rows), "key_tiles": rows[0]["key_tiles"]}
    out.update({"plain_ms": plain_ms, "traced_ms": traced_ms})
    for group, keep in (("first", 1.0), ("later", 0.0)):
        part = [r for r in rows if r["first_on_sm"] == keep]
        out[f"{group}_ctas"] = len(part)
        out[f"{group}_q_issued"] = med([r["q_issued"] for r in part])
        out[f"{group}_q_ready"] = med([r["q_ready_c0"] for r in part])
        out[f"{group}_s0_after_q"] = med([r["s0_c0"] - r["q_ready_c0"] for r in part])
        out[f"{group}_loop_after_s0"] = med([r["loop_c0"] - r["s0_c0"] for r in part])
        out[f"{group}_epilogue"] = med([r["epi_c0"] - r["loop_c0"] for r in part])
        out[f"{group}_cta_cycles"] = med([max(r["epi_c0"], r["epi_c1"]) for r in part])
    out["gap_between_ctas"] = med([r["gap_before"] for r in rows])
    return out


def main() -> None:
    out_dir = Path(sys.argv[1])
    shared = "--shared" in sys.argv[2:]
    both = "--pingpong-both" in sys.argv[2:]
    stem = "v3_cta_timeline_shared" if shared else "v3_cta_timeline_pp" if both else "v3_cta_timeline"
    flush, clock = common.L2Flusher(), common.ClockTrace()
    raw: list[dict[str, object]] = []
    summary: list[dict[str, object]] = []
    for d, pingpong in itertools.product(common.SUPPORTED_HEADDIMS, (True, False) if both else (True,)):
        config = launch.fwd_config(d)
        name = launch.kernel_name(d, config, False, pingpong, True)
        defines = {"FA3_CTA_TRACE": "", "FA3_TRACE_CTAS": TRACE_CTAS}
        module = common.module_with_defines(launch.SOURCE, defines, [name], launch.NVRTC_OPTIONS)
        stamps = cp.ndarray((TRACE_CTAS, len(FIELDS)), cp.int64, module.get_global("fa3_cta_trace"))
        for shape_name, batch, heads, n in shapes(d, shared):
            shape = (batch, heads, n, d)
            q, k, v = (common.random_tensor(shape, "bf16", seed) for seed in range(3))
            o, lse = cp.empty_like(q), cp.empty(shape[:3], dtype=cp.float32)

            def run(q=q, k=k, v=v, o=o, lse=lse, pingpong=pingpong) -> object:  # binds this shape's tensors
                return launch.forward(q, k, v, False, pingpong=pingpong, intra_wg_overlap=True, out=(o, lse))

            launch.precompile([name])
            plain = common.time_gpu(run, flush=flush, clock=clock)
            launch._functions[name] = module.get_function(name)  # the traced build from here on
            launch._functions[name].max_dynamic_shared_size_bytes = launch.smem_bytes(d, config)
            traced = common.time_gpu(run, flush=flush, clock=clock)
            ctas = ((n + launch.BLOCK_M - 1) // launch.BLOCK_M) * batch * heads
            rows: list[dict[str, float]] = []
            for _ in range(REPEATS if ctas == 1 else 1):
                stamps.fill(0)
                flush()
                run()
                cp.cuda.Stream.null.synchronize()
                rows += cta_rows(stamps.get(), ctas, (n + launch.BLOCK_N - 1) // launch.BLOCK_N)
            launch._functions.pop(name)
            variant = {"pingpong": pingpong} if both else {}
            raw += [{"headdim": d, **variant, "shape": shape_name, **r} for r in rows]
            summary.append({**variant, **summarize(shape_name, d, rows, plain.median_ms, traced.median_ms)})
            summary[-1]["plain_clock_mhz"] = plain.probe_clock_mhz
            print(summary[-1], flush=True)
    common.write_rows(out_dir / f"{stem}_h200.csv.gz", raw)
    common.write_rows(out_dir / f"{stem}_summary_h200.csv", summary)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()
