"""The v3 backward figures of this session's record that no other script gives (fast mode unless named):
- TFLOP/s on the H200 at 4 x 16 x 4k, d = 128, and at 4 x 32 x {1k, 4k, 16k}, d = 64, with the default tiles and,
  at d = 64, with the earlier 64-query tile (`block_m=64`);
- the H100's backward at 4 x 16 x 512, d = 64 (the whole-chip grid's case), per kernel in exact and fast mode, with
  both tiles;
- the dQ conversion's cycles past the launch at that shape against the chip's L2 floor (`tests/core/test_fast.py`).
Run at this session's code and, for the "before" figures, in a worktree of c03297f (which has no dQ split; its
default d = 64 tile is the 64-query one): `python docs/results/session_68/backward_checks.py`."""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate


def main() -> None:
    h200, h100 = load_arch("h200"), load_arch("h100")
    result = simulate(h200, "v3", Problem(4, 16, 4096, 128, pass_="bwd"))
    print(f"h200 4x16x4k d=128: {result.tflops:.1f} TFLOP/s, bottleneck {result.bottleneck}")
    for seqlen in (1024, 4096, 16384):
        problem = Problem(16384 // seqlen, 32, seqlen, 64, pass_="bwd")
        cells = [f"{name} {simulate(h200, 'v3', problem, options).tflops:.1f}"
                 for name, options in (("default", {}), ("block_m=64", {"block_m": 64}))]  # fmt: skip
        print(f"h200 d=64 N={seqlen}: " + ", ".join(cells) + " TFLOP/s")
    problem = Problem(4, 16, 512, 64, pass_="bwd")
    for name, options in (("default", {}), ("block_m=64", {"block_m": 64})):
        exact = simulate(h100, "v3", problem, options, mode="exact")
        fast = simulate(h100, "v3", problem, options, mode="fast")
        per_kernel = ", ".join(
            f"{f:.0f}/{e:.0f} ({f / e - 1:+.1%})" for f, e in zip(fast.kernel_cycles, exact.kernel_cycles, strict=True)
        )
        print(f"h100 4x16x512 d=64 {name}: fast/exact per kernel {per_kernel}; whole {fast.cycles / exact.cycles:.4f}")
        launch = h100.kernel_launch_s * fast.clock_hz
        floor = 4 * 16 * 512 * 64 * (4 + 2) / h100.l2_bytes_per_cycle(fast.clock_hz)
        print(f"  dQ conversion past the launch {fast.kernel_cycles[-1] - launch:.1f} cycles, L2 floor {floor:.1f}")


if __name__ == "__main__":
    main()
