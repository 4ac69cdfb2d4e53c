"""The v3 ablation experiment: each FA3_ABLATE bit takes out exactly the ops the ablated kernel lacks, and the quick
run compares the model with the committed H200 measurements."""

from __future__ import annotations

import csv
from pathlib import Path

from algorithms._schedule.softmax import o_rescale, online_softmax
from experiments import v3_ablation
from experiments.v3_ablation import EXP, LOADS, MAX, PV, RESCALE, STORES, S, _ablate_op
from simgpu.ops import Arrive, Load, Mma, Store, Vector

STAGES, D = 2, 64


def test_products_become_arrivals_where_the_schedule_waits_on_them() -> None:
    s = Mma(64, 128, 64, "bf16", arrive="s_c0")
    pv = Mma(64, 64, 128, "bf16", a="reg", arrive="pv_c0")
    assert _ablate_op(s, S, STAGES, D) == Arrive("s_c0")
    assert _ablate_op(pv, S, STAGES, D) == pv
    assert _ablate_op(pv, PV, STAGES, D) == Arrive("pv_c0")
    assert _ablate_op(Mma(64, 128, 64, "bf16"), S, STAGES, D) is None


def test_only_kv_loads_after_the_first_stages_go() -> None:
    first = Load("K", (0, 0, 1), 16384, arrive="k_full")
    later = Load("V", (0, 0, 2), 16384, arrive="v_full")
    q = Load("Q", (0, 0, 5), 16384, arrive="q_full")
    assert _ablate_op(first, LOADS, STAGES, D) == first
    assert _ablate_op(later, LOADS, STAGES, D) == Arrive("v_full")
    assert _ablate_op(q, LOADS, STAGES, D) == q


def test_softmax_parts_go_as_the_ablated_sass_lacks_them() -> None:
    row_max, quad_max, exps = online_softmax(64, 128, D, masked=False, rescale_o=False)
    assert _ablate_op(row_max, MAX, STAGES, D) is None
    assert _ablate_op(quad_max, MAX, STAGES, D) is None
    assert _ablate_op(exps, MAX, STAGES, D) == exps
    no_exp = _ablate_op(exps, EXP, STAGES, D)
    assert isinstance(no_exp, Vector) and no_exp.ex2 == 0 and no_exp.chain is not None and no_exp.chain.mufu == 0
    assert no_exp.fma == exps.fma and no_exp.alu == exps.alu
    assert _ablate_op(exps, PV, STAGES, D) == Vector(fma=exps.fma, ex2=exps.ex2, chain=exps.chain)  # no packing
    # The rescale of O: its own op with the overlap, folded into the exps without it; the epilogue is left alone.
    assert _ablate_op(o_rescale(64, D), RESCALE, STAGES, D) is None
    folded = online_softmax(64, 128, D, masked=False, rescale_o=True)[2]
    assert _ablate_op(folded, RESCALE, STAGES, D) == exps
    # Cut into 16 parts, each part loses a sixteenth of the rescale.
    parts = online_softmax(64, 128, D, masked=False, rescale_o=True, parts=16)[2:]
    bare = online_softmax(64, 128, D, masked=False, rescale_o=False, parts=16)[2:]
    assert [_ablate_op(part, RESCALE, STAGES, D, parts=16) for part in parts] == list(bare)
    epilogue = Vector(fma=64 * D, ex2=64)
    assert _ablate_op(epilogue, RESCALE, STAGES, D) == epilogue


def test_stores_go_with_their_bit() -> None:
    store = Store("O", (0, 0, 0, 0), 8192, engine="ldg", fragment_lane_bytes=4)
    assert _ablate_op(store, STORES, STAGES, D) is None
    assert _ablate_op(store, EXP | PV, STAGES, D) == store


def test_quick_run_compares_the_whole_and_the_gemm_free_kernel(tmp_path: Path) -> None:
    v3_ablation.main(["--quick", "--out", str(tmp_path), "--jobs", "1"])
    assert (tmp_path / "v3_ablation.png").stat().st_size > 0
    with (tmp_path / "v3_ablation.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert sorted((r["headdim"], r["ablate"]) for r in rows) == [("128", "0"), ("128", "12"), ("64", "0"), ("64", "12")]
    for d in ("64", "128"):
        whole, no_gemms = (float(r["model_cycles_per_tile_per_sm"]) for r in sorted(
            (r for r in rows if r["headdim"] == d), key=lambda r: int(r["ablate"])))  # fmt: skip
        assert no_gemms < whole
    for r in rows:
        measured = float(r["measured_cycles_per_tile_per_sm"])
        assert float(r["rel_error"]) == float(r["model_cycles_per_tile_per_sm"]) / measured - 1
