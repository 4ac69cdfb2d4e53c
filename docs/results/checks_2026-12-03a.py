"""Side check of the twentieth session: fast mode's HBM bytes for v1's split forward grid, against exact mode.

FA1's v0.2-v1.0 releases launch a head's `splits` CTAs `batch x heads` apart (`algorithms/v1/schedule.py`,
`_split_tiles`); fast mode's L2 replay walks the first heads' tiles together (`simgpu/fast_bytes.py`,
`_first_heads`). Prints, for the A100 (whole, and cut to fewer SMs and less L2), exact and fast mode's HBM reads and
writes and fast over exact in cycles. Then, for the kernels whose heads' tiles are not contiguous in launch order,
how far apart a head's first and last tiles are launched: the test of `head_span_replay_not_kept.patch` (replay in
launch order where a head spans more than the replayed heads' tiles) caught v1's split grid, and also v3's and v4's
causal orders, whose bytes fast mode gets right (`docs/results/fast_vs_exact_causal.csv`). Last, fast mode's wall
time and bytes on FA2's sweep with the releases' splits (`v1_levels.py`'s shapes), and two figures its docstring quotes:
the forward with one CTA per head at N = 512 and 1k (exact), and at N = 512 with L2 off (fast mode).
Run from the repository root: `python docs/results/checks_2026-12-03a.py > docs/results/checks_2026-12-03a.txt`;
with the patch applied (`git apply docs/results/head_span_replay_not_kept.patch`, then `python build_native.py`):
`checks_2026-12-03a_patched.txt`."""

from __future__ import annotations

import time
from collections import Counter

from algorithms.v1.schedule import release_splits
from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.kernel import TileGrid

SPLIT_CASES = (  # (SMs, L2 bytes or None, batch, heads, seqlen, splits)
    (108, None, 32, 32, 512, 4),
    (108, None, 8, 32, 512, 4),
    (27, None, 8, 8, 512, 4),
    (16, 4 * 2**20, 4, 8, 512, 4),
)


def split_bytes() -> None:
    for sms, l2, batch, heads, seqlen, splits in SPLIT_CASES:
        overrides: dict[str, object] = {"sms": sms}
        if l2 is not None:
            overrides["l2.capacity_bytes"] = l2
        arch = load_arch("a100", overrides)
        problem = Problem(batch, heads, seqlen, 64)
        exact = simulate(arch, "v1", problem, {"splits": splits}, mode="exact")
        fast = simulate(arch, "v1", problem, {"splits": splits}, mode="fast")
        print(f"A100 {sms} SMs, L2 {arch.l2.capacity_bytes / 2**20:.0f} MiB, {batch} x {heads} heads, N={seqlen}, "
              f"{splits} splits: HBM read / write exact {exact.hbm_read_bytes / 1e6:.1f} / "
              f"{exact.hbm_write_bytes / 1e6:.1f} MB, fast {fast.hbm_read_bytes / 1e6:.1f} / "
              f"{fast.hbm_write_bytes / 1e6:.1f} MB; cycles fast / exact {fast.cycles / exact.cycles:.4f}")  # fmt: skip


def spans() -> None:
    cases = [("h200", "v3", Problem(16384 // n, 16, n, 128, causal=True), {}) for n in (1024, 4096, 16384)]
    cases += [("b200", "v4", Problem(16384 // n, 16, n, 128, causal=True), {}) for n in (1024, 4096, 16384)]
    cases += [("a100", "v1", Problem(16384 // n, 32, n, 64), {"splits": 4}) for n in (512, 1024, 2048, 4096)]
    for arch_name, algo, problem, options in cases:
        arch = load_arch(arch_name)
        for kernel in schedule(arch, algo, problem, options):
            axes = kernel.head_axes
            if not axes or isinstance(kernel.tiles, TileGrid):
                continue
            heads = Counter(tuple(tile[:axes]) for tile in kernel.tiles)  # type: ignore[index]
            first = tuple(kernel.tiles[0][:axes])  # type: ignore[index]
            span = 1 + max(n for n, tile in enumerate(kernel.tiles) if tuple(tile[:axes]) == first)  # type: ignore[index]
            print(f"{arch_name} {algo} {kernel.name} N={problem.seqlen_q} causal={problem.causal} {options}: "
                  f"{len(kernel.tiles)} tiles, {heads[first]} per head, the first head's span {span} tiles "
                  f"({span / len(kernel.tiles):.0%} of the grid)")  # fmt: skip


def sweep_timing() -> None:
    arch = load_arch("a100")
    for seqlen in (512, 1024, 2048, 4096):
        for pass_ in ("fwd", "fwd_bwd"):
            problem = Problem(16384 // seqlen, 32, seqlen, 64, pass_=pass_)
            options = {"splits": release_splits(arch, problem)}
            simulate(arch, "v1", problem, options)  # warm-up
            started = time.perf_counter()
            result = simulate(arch, "v1", problem, options)
            wall = time.perf_counter() - started
            print(f"FA2's sweep N={seqlen} {pass_} {options}: fast mode {wall:.3f} s, "
                  f"HBM {(result.hbm_read_bytes + result.hbm_write_bytes) / 1e9:.3f} GB")  # fmt: skip


def v1_levels_side() -> None:
    arch = load_arch("a100")
    peak = arch.peak_flops_per_s("fp16")
    for seqlen in (512, 1024):
        result = simulate(arch, "v1", Problem(16384 // seqlen, 32, seqlen, 64), {"splits": 1}, mode="exact")
        print(f"FA2's sweep N={seqlen} fwd, one CTA per head (exact): {100 * result.tflops * 1e12 / peak:.1f}% of peak")
    problem = Problem(32, 32, 512, 64)
    no_l2 = load_arch("a100", {"l2.capacity_bytes": 0})
    result = simulate(no_l2, "v1", problem, {"splits": release_splits(arch, problem)})
    print(f"FA2's sweep N=512 fwd, the releases' splits, L2 off (fast): {100 * result.tflops * 1e12 / peak:.1f}% of "
          f"peak, HBM {(result.hbm_read_bytes + result.hbm_write_bytes) / 1e9:.2f} GB")  # fmt: skip


if __name__ == "__main__":
    split_bytes()
    spans()
    sweep_timing()
    v1_levels_side()
