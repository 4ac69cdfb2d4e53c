"""Fast mode against exact mode on a grid of small problems: every algorithm on the archs that run it, forward and
backward, causal or not, on a chip cut to 8 SMs (several full waves) and to 10 SMs (a tail wave). Writes the
cycle ratio (and each kernel's), whether every byte count agrees, both wall times and how many kernels fast mode ran
whole (small kernels of unequal tiles, `simgpu.fast_whole`) (CSV, then a PNG from it).

`python -m experiments.fast_vs_exact [--quick] [--out DIR]`; `--quick` runs the A100's cases of the first shape.
`--large` instead compares full-size runs where fast mode is weakest (`fast_vs_exact_large.csv`): GPT-2 medium on the
A100 (forward and backward, 1,024 heads), standard attention whose S overflows L2, and v1 on the H100 as one wave on
half the SMs. `--prefix` checks the replay of a prefix of one head's tiles that long sequences take
(`simgpu.fast_bytes`), made to apply at a size exact mode affords (4,096 tokens on 4 SMs) by lowering
`HEAD_PREFIX_TILES` to 8 tiles: fast mode with and without it against exact mode (`fast_vs_exact_prefix.csv`; it
patches fast mode's module, so it runs with `SIMGPU_NATIVE=0`).
`--whatif` compares arch what-ifs far from the shipped chips (a much slower HBM, a tiny L2 or none;
`fast_vs_exact_whatif.csv`). `--causal` compares causal attention at full chip size, where causal kernels are too
large to run whole and take the list schedule (16k tokens, 2,048 / d heads, d = 64 and 128, N = 1k and 4k: v1, v2
and v3 on the H200, v4 on the B200, v2 on the A100, forward and backward; `fast_vs_exact_causal.csv`), two worker
processes; with `--quick`, its first case at one sequence. `--whole` compares whole chips at ordinary shapes, not
causal (every algorithm on the archs that run it, forward and backward, four shapes of 16-64 heads at N = 512-2k;
`fast_vs_exact_whole.csv`), `--jobs` worker processes; with `--quick`, the A100's standard forward at the first shape.
`--fa2` compares FA2's benchmark shapes (16k tokens, 2,048 / d heads, d = 64 and 128, N = 512-16k, standard attention
to 4k; not causal): every algorithm on the A100 and the H100, v4 on the B200, forward and backward, v1's forward
with the releases' splits (`release_splits`), as FA2's benchmark ran FA1 (`fast_vs_exact_fa2.csv`), `--jobs` worker
processes, exact mode's event budget raised (v1's backward at 16k tokens takes about 40 s); with `--quick`, the
A100's v2 forward at 16k tokens.
"""

from __future__ import annotations

import argparse
import csv
import time
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any
from unittest import mock

import simgpu.fast_bytes
from algorithms.v1.schedule import release_splits
from experiments._common import OUT_DIR, map_rows, save
from simgpu import Problem, load_arch, native, simulate
from simgpu.api import schedule
from simgpu.engine import DEFAULT_EVENT_BUDGET
from simgpu.fast_plan import plan_kernel
from simgpu.result import BYTE_FIELDS

ALGOS_BY_ARCH = (
    ("a100", ("standard", "v1", "v2")),
    ("h100", ("standard", "v1", "v2", "v3")),
    ("b200", ("standard", "v1", "v2", "v4")),
)
# (arch overrides, problem sizes): several full waves on 8 SMs; a tail wave on 10 SMs.
SHAPES = (
    ({"sms": 8}, {"batch": 2, "heads": 2, "seqlen_q": 1024, "headdim": 64}),
    ({"sms": 10}, {"batch": 1, "heads": 3, "seqlen_q": 1536, "headdim": 128}),
)
GRID = [
    (arch, algo, pass_, causal, shape)
    for arch, algos in ALGOS_BY_ARCH
    for algo in algos
    for pass_ in ("fwd", "bwd")
    for causal in (False, True)
    for shape in range(len(SHAPES))
]


# (arch, algo, problem sizes) of the --large comparison.
LARGE = (
    ("a100", "v1", {"batch": 64, "heads": 16, "seqlen_q": 1024, "headdim": 64, "pass_": "fwd_bwd"}),
    ("a100", "standard", {"batch": 64, "heads": 16, "seqlen_q": 1024, "headdim": 64, "pass_": "fwd_bwd"}),
    ("a100", "standard", {"batch": 2, "heads": 8, "seqlen_q": 2048, "headdim": 64}),
    ("h100", "v1", {"batch": 4, "heads": 16, "seqlen_q": 4096, "headdim": 128}),  # one wave on half the SMs
)


# (arch, overrides, algo, problem sizes) of the --whatif comparison: arch what-ifs far from the shipped chips, where
# `tests/core/test_properties.py` pins fast mode's misses (HBM 33x slower than the H100's, no L2).
WHATIF = (
    ("h100", {"hbm.bandwidth_bytes_per_s": 3e11}, "v2", {"batch": 1, "heads": 4, "seqlen_q": 1024, "headdim": 128}),
    ("h100", {"hbm.bandwidth_bytes_per_s": 1e11}, "v2", {"batch": 1, "heads": 4, "seqlen_q": 1024, "headdim": 128}),
    (
        "a100",
        {"l2.capacity_bytes": 32823},
        "standard",
        {"batch": 1, "heads": 1, "seqlen_q": 183, "headdim": 32, "pass_": "fwd_bwd"},
    ),
    ("h100", {"l2.capacity_bytes": 0}, "v3", {"batch": 1, "heads": 1, "seqlen_q": 65, "headdim": 128}),
)


# (arch, algo, pass, seqlen, headdim) of the --causal comparison, at 16k tokens and 2,048 / headdim heads.
CAUSAL = [
    (arch, algo, pass_, n, d)
    for arch, algo in (("h200", "v2"), ("h200", "v3"), ("b200", "v4"), ("h200", "v1"), ("a100", "v2"))
    for pass_ in ("fwd", "bwd")
    for n in (1024, 4096)
    for d in (64, 128)
]
CAUSAL_TOKENS = 16384


# (arch, algos) and (batch, heads, seqlen, headdim) of the --whole comparison: whole chips at shapes exact mode affords
# in seconds, where the grid's chips cut to 8 and 10 SMs leave out what a whole chip's many SMs sharing HBM and L2 do.
WHOLE_ALGOS = (
    ("a100", ("standard", "v1", "v2")),
    ("h100", ("standard", "v1", "v2", "v3")),
    ("h200", ("standard", "v2", "v3")),
    ("b200", ("standard", "v2", "v4")),
)
WHOLE_SHAPES = ((1, 16, 1024, 64), (2, 16, 1024, 128), (4, 16, 512, 64), (1, 8, 2048, 128))
WHOLE = [
    (arch, algo, pass_, shape)
    for arch, algos in WHOLE_ALGOS
    for algo in algos
    for pass_ in ("fwd", "bwd")
    for shape in WHOLE_SHAPES
]


# (arch, algos) and sequence lengths of the --fa2 comparison: FA2's benchmark at 16k tokens, 2,048 / headdim heads.
FA2_ALGOS = (("a100", ("standard", "v1", "v2")), ("h100", ("standard", "v1", "v2", "v3")), ("b200", ("v4",)))
FA2_SEQLENS = (512, 1024, 2048, 4096, 8192, 16384)
FA2_STANDARD_SEQLENS = (512, 1024, 2048, 4096)  # its exact mode past 4k takes minutes a prediction
FA2 = [
    (arch, algo, pass_, n, d)
    for arch, algos in FA2_ALGOS
    for algo in algos
    for pass_ in ("fwd", "bwd")
    for d in (64, 128)
    for n in (FA2_STANDARD_SEQLENS if algo == "standard" else FA2_SEQLENS)
]
FA2_TOKENS = 16384
FA2_EXACT_BUDGET = 10**9


# (arch, algo) of the --prefix check, each forward and backward, causal or not.
PREFIX = (("h100", "standard"), ("h100", "v2"), ("h100", "v3"), ("b200", "v4"), ("a100", "v2"))


def compare_prefix(arch_name: str, algo: str, pass_: str, causal: bool) -> dict[str, object]:
    """Fast mode with a prefix replay of 8 tiles per head and without one (a whole head), against exact mode."""
    arch = load_arch(arch_name, {"sms": 4})
    problem = Problem(1, 2, 4096, 128, causal=causal, pass_=pass_)
    exact = simulate(arch, algo, problem, mode="exact")
    prefix_calls: list[int] = []
    replay_prefix = simgpu.fast_bytes._head_prefix_bytes

    def counted(*args: Any) -> Any:
        prefix_calls.append(1)
        return replay_prefix(*args)

    with (
        mock.patch.object(simgpu.fast_bytes, "HEAD_PREFIX_TILES", 8),
        mock.patch.object(simgpu.fast_bytes, "_head_prefix_bytes", counted),
    ):
        prefix = simulate(arch, algo, problem)
    with mock.patch.object(simgpu.fast_bytes, "HEAD_PREFIX_TILES", 10**9):
        whole = simulate(arch, algo, problem)
    row: dict[str, object] = {"arch": arch_name, "algo": algo, "pass": pass_, "causal": causal}
    row["prefix_replayed"] = bool(prefix_calls)
    for name in ("cycles", "hbm_read_bytes", "hbm_write_bytes", "l2_read_bytes"):
        row[f"{name}_prefix_over_exact"] = getattr(prefix, name) / getattr(exact, name)
        row[f"{name}_whole_over_exact"] = getattr(whole, name) / getattr(exact, name)
    return row


def compare_causal(case: tuple[str, str, str, int, int], tokens: int = CAUSAL_TOKENS) -> dict[str, object]:
    """A --causal case on the whole chip, `tokens` in all."""
    arch, algo, pass_, n, d = case
    return compare_on(arch, {}, algo, Problem(max(1, tokens // n), 2048 // d, n, d, causal=True, pass_=pass_))


def compare_whole(case: tuple[str, str, str, tuple[int, int, int, int]]) -> dict[str, object]:
    """A --whole case: the whole chip, not causal."""
    arch, algo, pass_, (batch, heads, n, d) = case
    return compare_on(arch, {}, algo, Problem(batch, heads, n, d, pass_=pass_))


def compare_fa2(case: tuple[str, str, str, int, int]) -> dict[str, object]:
    """A --fa2 case: FA2's benchmark shape on the whole chip; v1's forward with the releases' splits."""
    arch_name, algo, pass_, n, d = case
    problem = Problem(FA2_TOKENS // n, 2048 // d, n, d, pass_=pass_)
    options = {"splits": release_splits(load_arch(arch_name), problem)} if (algo, pass_) == ("v1", "fwd") else {}
    return {**compare_on(arch_name, {}, algo, problem, options, FA2_EXACT_BUDGET), "options": options}


def _compare_case(case: tuple[str, str, str, bool, int]) -> dict[str, object]:
    return compare(*case)


def compare(arch_name: str, algo: str, pass_: str, causal: bool, shape: int) -> dict[str, object]:
    overrides, sizes = SHAPES[shape]
    return compare_on(arch_name, overrides, algo, Problem(**sizes, causal=causal, pass_=pass_))  # type: ignore[arg-type]


def compare_on(
    arch_name: str,
    overrides: Mapping[str, object],
    algo: str,
    problem: Problem,
    options: Mapping[str, object] | None = None,
    event_budget: int = DEFAULT_EVENT_BUDGET,
) -> dict[str, object]:
    arch = load_arch(arch_name, overrides)
    started = time.perf_counter()
    exact = simulate(arch, algo, problem, options, mode="exact", event_budget=event_budget)
    exact_s = time.perf_counter() - started
    started = time.perf_counter()
    fast = simulate(arch, algo, problem, options, mode="fast")
    fast_s = time.perf_counter() - started
    # Kernels fast mode ran whole (`simgpu.fast_whole`): its fluid schedule is not what these rows check.
    whole = sum(plan_kernel(arch, kernel).whole for kernel in schedule(arch, algo, problem, dict(options or {})))
    return {
        "arch": arch_name,
        "algo": algo,
        "pass": problem.pass_,
        "causal": problem.causal,
        "sms": overrides.get("sms", arch.sms),
        "batch": problem.batch,
        "heads": problem.heads,
        "seqlen_q": problem.seqlen_q,
        "headdim": problem.headdim,
        "cycles_exact": exact.cycles,
        "cycles_fast": fast.cycles,
        "fast_over_exact": fast.cycles / exact.cycles,
        # Per kernel, in launch order: which kernel a difference comes from.
        "kernels_fast_over_exact": " ".join(
            f"{f / e:.4f}" for f, e in zip(fast.kernel_cycles, exact.kernel_cycles, strict=True)
        ),
        "bytes_equal": all(abs(getattr(fast, name) - getattr(exact, name)) < 0.5 for name in BYTE_FIELDS),
        "hbm_bytes_fast_over_exact": fast.hbm_bytes / exact.hbm_bytes,
        "exact_s": exact_s,
        "fast_s": fast_s,
        "kernels_run_whole": whole,
    }


def plot(csv_path: Path, png_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with csv_path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    labels = [f"{r['arch']} {r['algo']} {r['pass']}{' c' if r['causal'] == 'True' else ''} {r['sms']}" for r in rows]
    errors = [100 * (float(r["fast_over_exact"]) - 1) for r in rows]
    fig, ax = plt.subplots(figsize=(14, 4.5))
    colors = ["tab:red" if abs(e) > 1 else "tab:blue" for e in errors]
    # Rows where fast mode ran a kernel whole (`simgpu.fast_whole`) hatched: they check that path, not the fluid one.
    hatches = ["//" if int(r.get("kernels_run_whole") or 0) else "" for r in rows]
    ax.bar(range(len(rows)), errors, color=colors, hatch=hatches)
    ax.axhspan(-1, 1, color="grey", alpha=0.15, label="within 1%")
    ax.set_xticks(range(len(rows)), labels, rotation=90, fontsize=5)
    ax.set_ylabel("fast / exact - 1 in cycles (%)")
    inside = sum(abs(e) <= 1 for e in errors)
    equal = sum(r["bytes_equal"] == "True" for r in rows)
    ax.set_title(
        f"fast vs exact: {inside}/{len(rows)} within 1% in cycles; bytes equal in {equal}/{len(rows)}"
        " (hatched: a kernel run whole)"
    )
    ax.legend()
    fig.tight_layout()
    fig.savefig(png_path, dpi=140)
    plt.close(fig)


def plot_prefix(csv_path: Path, png_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with csv_path.open(encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if r["prefix_replayed"] == "True"]
    labels = [f"{r['arch']} {r['algo']} {r['pass']}{' c' if r['causal'] == 'True' else ''}" for r in rows]
    fig, ax = plt.subplots(figsize=(8, 4))
    for offset, name in ((-0.2, "cycles"), (0.0, "hbm_read_bytes"), (0.2, "hbm_write_bytes")):
        values = [100 * (float(r[f"{name}_prefix_over_exact"]) - 1) for r in rows]
        ax.bar([n + offset for n in range(len(rows))], values, width=0.2, label=name)
    ax.set_xticks(range(len(rows)), labels, rotation=60, fontsize=7)
    ax.set_ylabel("fast (prefix replay) / exact - 1 (%)")
    ax.set_title("replaying a prefix of one head's tiles, where it applies")
    ax.legend()
    fig.tight_layout()
    fig.savefig(png_path, dpi=140)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="the A100's cases of the first shape")
    parser.add_argument("--large", action="store_true", help="full-size runs instead of the grid")
    parser.add_argument("--prefix", action="store_true", help="the prefix replay of long sequences, scaled down")
    parser.add_argument("--whatif", action="store_true", help="arch what-ifs far from the shipped chips")
    parser.add_argument("--causal", action="store_true", help="causal attention at full chip size")
    parser.add_argument("--whole", action="store_true", help="whole chips at ordinary shapes, not causal")
    parser.add_argument("--fa2", action="store_true", help="FA2's benchmark shapes on whole chips")
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (the grid)")
    args = parser.parse_args(argv)
    if args.prefix:
        if native.compiled():
            # Compiled code calls `_head_prefix_bytes` directly: the count of prefix replays would read 0.
            parser.error("--prefix patches fast mode's functions: run it with SIMGPU_NATIVE=0")
        prefix_cases = [
            (arch, algo, pass_, causal) for arch, algo in PREFIX for pass_ in ("fwd", "bwd") for causal in (False, True)
        ]
        save([compare_prefix(*case) for case in prefix_cases], args.out, "fast_vs_exact_prefix", plot_prefix)
        return
    if args.whatif:
        rows = [
            {**compare_on(arch, overrides, algo, Problem(**sizes)), "overrides": overrides}  # type: ignore[arg-type]
            for arch, overrides, algo, sizes in WHATIF
        ]
        save(rows, args.out, "fast_vs_exact_whatif", plot)
        return
    if args.causal:
        if args.quick:
            rows = [compare_causal(CAUSAL[0], tokens=CAUSAL[0][3])]
        else:
            with ProcessPoolExecutor(2) as pool:
                rows = list(pool.map(compare_causal, CAUSAL))
        save(rows, args.out, "fast_vs_exact_causal", plot)
        return
    if args.fa2:
        quick = [case for case in FA2 if case[:4] == ("a100", "v2", "fwd", FA2_TOKENS)][:1]
        rows = map_rows(compare_fa2, quick if args.quick else FA2, args.jobs)
        save(rows, args.out, "fast_vs_exact_fa2", plot)
        return
    if args.whole:
        rows = map_rows(compare_whole, WHOLE[:1] if args.quick else WHOLE, args.jobs)
        save(rows, args.out, "fast_vs_exact_whole", plot)
        return
    if args.large:
        rows = [compare_on(arch, {}, algo, Problem(**sizes)) for arch, algo, sizes in LARGE]  # type: ignore[arg-type]
        save(rows, args.out, "fast_vs_exact_large", plot)
        return
    cases = [case for case in GRID if not args.quick or (case[0] == "a100" and case[4] == 0)]
    rows = map_rows(_compare_case, cases, args.jobs)
    save(rows, args.out, "fast_vs_exact", plot)


if __name__ == "__main__":
    main()
