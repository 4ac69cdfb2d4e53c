"""Fast mode's worst v1 shape at the H200 validation's configurations (our kernel's loop, 32 x 32 x 512, d = 64,
at the arch file's clock): cycles and HBM / L2 bytes in both modes.
`python docs/results/saturated_53/v1_h200_worst.py > docs/results/saturated_53/v1_h200_worst.txt`"""

from __future__ import annotations

from simgpu import Problem, simulate

OPTIONS = {"block_m": 64, "block_n": 64, "warps": 4, "variant": "algorithm1"}


def main() -> None:
    for mode in ("fast", "exact"):
        result = simulate("h200", "v1", Problem(32, 32, 512, 64), OPTIONS, mode=mode)
        gigabytes = (result.hbm_read_bytes, result.hbm_write_bytes, result.l2_read_bytes, result.l2_write_bytes)
        print(
            f"{mode}: {result.cycles:,.0f} cycles; HBM read / write, L2 read / write (GB): "
            + " / ".join(f"{value / 1e9:.3f}" for value in gigabytes)
        )


if __name__ == "__main__":
    main()
