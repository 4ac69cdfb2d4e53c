"""Per-tile accounting: one CTA's first tile alone on one SM, each unit's busy cycles (the FA4 roofline tables)."""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate


def test_v3_tile_cycles_follow_the_roofline_formulas() -> None:
    m, n, d = 128, 128, 128  # one Q tile of two 64-row consumers against one K/V block, H100 (4096 FLOP/clk/SM)
    # The roofline counts each unit at its own rate. With H100's `contention` on, busy times also depend on how much
    # of a consumer's softmax overlaps the other consumer's GEMMs (ex2 slower beside wgmma, wgmma slower beside FFMA).
    nominal = load_arch("h100", {"contention": None})
    result = simulate(nominal, "v3", Problem(1, 1, m, d, seqlen_k=n), {"block_n": n}, per_tile=True)
    cycles = result.unit_cycles
    assert cycles["tensor"] == 4 * m * n * d / 4096
    # MUFU: one ex2 per score, one per row for the rescale factor and one per row in the epilogue (16 per clock).
    assert cycles["mufu"] == (m * n + 2 * m) / 16
    # smem port: each consumer reads its Q rows, all of K and all of V; the epilogue stages O (128 B per clock). The
    # TMA copies of Q, K and V landing in smem take the arch's measured share of the port for their bytes.
    reads = (m * d + 2 * (n * d) * 2 + m * d) * 2 / 128
    landed = nominal.smem.tma_write_port_fraction * (m * d + 2 * n * d) * 2 / 128
    assert cycles["smem"] == reads + landed
    assert result.mode == "exact, per tile"


def test_per_tile_runs_the_first_tile_of_a_larger_problem() -> None:
    # v3's first tile is Q block 0 (128 rows) against every key block of its head: 1024 keys in 8 blocks of 128.
    # Contention off, as above: the tensor cores' busy cycles are then their FLOPs over their rate.
    tile = simulate(
        load_arch("h100", {"contention": None}), "v3", Problem(2, 4, 1024, 128), {"block_n": 128}, per_tile=True
    )
    assert tile.to_dict(per_tile=True)["unit_cycles"]["tensor"] == 4 * 128 * 1024 * 128 / 4096
    assert tile.hbm_read_bytes == (128 + 2 * 1024) * 128 * 2  # Q block, all of K and V of one head
