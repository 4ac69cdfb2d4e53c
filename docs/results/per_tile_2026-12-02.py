"""Issue 7's per-tile accounting as `simulate(..., per_tile=True)` now reports it: one steady-state main-loop tile
(`simgpu.per_tile`) of the v4 (FA4) schedule on the B200 model, every exp on MUFU and no rescaling (FA4's tables);
output in `per_tile_2026-12-02.txt`.

`python docs/results/per_tile_2026-12-02.py > docs/results/per_tile_2026-12-02.txt` (seconds). Per case: the direct
tile's busy cycles, the FA4 figure and the closed form the tests hold it to, and what one more key block (forward) or
Q tile (backward) adds to the whole first work item (`work_item_unit_cycles`, two runs), which must agree.
"""

from __future__ import annotations

from typing import Any

from simgpu import Problem, load_arch, simulate

ALL_MUFU = {"exp_emulation_fraction": 0.0, "rescale_fraction": 0.0}
UNITS = ("tensor", "smem", "mufu", "fma", "alu", "tmem", "dsmem", "hbm")
ARCH = load_arch("b200")
BLOCKS = 32  # key blocks (forward) or Q tiles (backward) of the first work item


def problem(rows: int, blocks: int, pass_: str) -> Problem:
    if pass_ == "fwd":
        return Problem(1, 1, rows, 128, seqlen_k=128 * blocks)
    return Problem(1, 1, rows * blocks, 128, seqlen_k=128, pass_="bwd")


def case(label: str, rows: int, pass_: str, options: dict[str, Any], expected: str) -> None:
    runs = [
        simulate(ARCH, "v4", problem(rows, n, pass_), {**ALL_MUFU, **options}, per_tile=True)
        for n in (BLOCKS, BLOCKS + 1)
    ]
    tile = runs[0].unit_cycles
    shorter, longer = (run.work_item_unit_cycles or {} for run in runs)
    print(f"{label} direct tile: " + ", ".join(f"{u} {tile.get(u, 0.0):g}" for u in UNITS))
    print(f"{label} expected: {expected}")
    added = {u: longer.get(u, 0.0) - shorter.get(u, 0.0) for u in UNITS}
    print(f"{label} work item {BLOCKS + 1} minus {BLOCKS}: " + ", ".join(f"{u} {added[u]:g}" for u in UNITS))
    print(f"{label} raw work item ({BLOCKS}): {dict(shorter)}")


def main() -> None:
    m, n, d = 128, 128, 128
    for rows in (128, 256):
        case(
            f"fwd M={rows} N=d=128",
            rows,
            "fwd",
            {},
            f"FA4 Table 1 tensor {4 * rows * n * d // 8192} smem {3 * rows * n * d // 8192} mufu {rows * n // 16} "
            f"(+ M/16 = {rows // 16} rescale-factor exps)",
        )
    case("bwd 1-CTA M=N=d=128", m, "bwd", {}, "FA4 §3.2.1 tensor 2560 smem 3328 mufu 1024")
    assert ARCH.dsmem is not None
    link = m * n * 2 / 2 / ARCH.dsmem.bandwidth_bytes_per_cycle
    case(
        "bwd 2-CTA M=N=d=128",
        m,
        "bwd",
        {"two_cta": True},
        f"smem 3328 + 256 - 512 - 512 = {3328 + 256 - 512 - 512} (FA4: about 2688), dsmem {link:g}",
    )


if __name__ == "__main__":
    main()
