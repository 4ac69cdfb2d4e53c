"""Exact mode's engine rate as `make bench` measures it (`benchmarks.simspeed.engine_rate`: v2's forward at 4k), on
the H100 and the B200, twice each. Prints thousands of ops per second."""

from __future__ import annotations

from benchmarks.simspeed import engine_rate


def main() -> None:
    rates = [engine_rate(arch, "v2", 4096) for arch in ("h100", "b200", "h100", "b200")]
    print(" ".join(f"{r['arch']} {r['ops'] / r['seconds'] / 1e3:.0f}k" for r in rates))  # type: ignore[operator]


if __name__ == "__main__":
    main()
