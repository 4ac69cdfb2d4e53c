"""FA3's dQ conversion on the whole H100 (v3 backward, 4 x 16 heads, N = 512, d = 64), the run's last kernel: its
cycles past the launch in fast and exact mode, and its L2 bytes (dQ read as fp32, written as bf16) at the chip's L2
rate. Run from a checkout's root: `PYTHONPATH=. python docs/results/kernel_l2_bound_32/dq_convert.py`."""

from simgpu import Problem, load_arch, simulate


def main() -> None:
    arch = load_arch("h100")
    batch, heads, seqlen, headdim = 4, 16, 512, 64
    problem = Problem(batch, heads, seqlen, headdim, pass_="bwd")
    for mode in ("fast", "exact"):
        result = simulate(arch, "v3", problem, mode=mode)
        launch = arch.kernel_launch_s * result.clock_hz
        print(f"{mode}: dQ conversion {result.kernel_cycles[-1] - launch:,.0f} cycles past its launch")
    l2_bytes = batch * heads * seqlen * headdim * (4 + 2)
    l2_cycles = l2_bytes / arch.l2_bytes_per_cycle(arch.clock_hz)
    print(f"L2 bytes {l2_bytes / 1e6:.2f} MB at the chip's rate: {l2_cycles:,.0f} cycles")


if __name__ == "__main__":
    main()
