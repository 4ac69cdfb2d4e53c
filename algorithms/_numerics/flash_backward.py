"""The K/V-outer backward with recomputation of FlashAttention 1 and 2 (also used by v3 and v4).

Modeled (FA1 Algorithm 4 and FA2 Algorithm 2 compute the same numbers in the same loop order): for each K/V
tile keep dK_j, dV_j in fp32 on chip; for each Q tile it sees, recompute `P = exp2(S * scale * log2(e) - lse
* log2(e))`, then `dV_j += P^T dO_i`, `dP = dO_i V_j^T`, `dS = P * (dP - D_i)` with `D = rowsum(dO * O)`,
`dQ_i += scale * dS K_j` in an fp32 accumulator in HBM, `dK_j += scale * dS^T Q_i`. P and dS are rounded to
the storage dtype before the GEMMs that consume them, as in the kernels. The two generations differ only in
their HBM traffic, counted per `style`: FA1 reads O_i, l_i, m_i in every inner step and computes D_i there;
FA2 runs a preprocessing pass for D and reads lse_i, D_i. Both zero an fp32 dQ accumulator first and convert
it to the output dtype in a final pass. Ignored: atomics' serialization and deterministic ordering (the sum
order here is the K/V tile order), smem reuse between the five GEMMs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from .blocks import causal_tile_mask, tile_fully_masked, tile_needs_mask, tiles
from .exp2 import exp2_hardware
from .precision import Precision, round_to
from .stats import NumericsStats, Tally

__all__ = ["BackwardRecipe", "flash_backward"]

_LOG2E = float(np.log2(np.e))


@dataclass(frozen=True)
class BackwardRecipe:
    """Tile sizes and whose HBM traffic to count ("fa1": Algorithm 4 of FA1, "fa2": Algorithm 2 of FA2)."""

    block_m: int
    block_n: int
    style: Literal["fa1", "fa2"]


def flash_backward(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    o: np.ndarray,
    lse: np.ndarray,
    do: np.ndarray,
    causal: bool,
    scale: float,
    recipe: BackwardRecipe,
    prec: Precision,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, NumericsStats]:
    """Gradients `(dq, dk, dv)` in the storage dtype, and the counts of this call."""
    b, h, nq, d = q.shape
    nk = k.shape[2]
    bh = b * h
    acc = prec.acc
    e_in, e_acc, e_out = q.dtype.itemsize, prec.acc_bytes, prec.storage_bytes
    e_o, e_do = o.dtype.itemsize, do.dtype.itemsize
    qa, ka, va, oa, doa = (x.astype(acc) for x in (q, k, v, o, do))  # (B, H, N, d) each
    scale_log2 = acc.type(scale * _LOG2E)
    lse2 = np.where(np.isneginf(lse), np.inf, lse * _LOG2E).astype(acc)  # (B, H, Nq) +inf: P = 0
    d_rows = np.sum(doa * oa, axis=-1)  # (B, H, Nq) D = rowsum(dO * O) in fp32
    tally = Tally()
    # dQ accumulator zeroed in HBM: Nq*d fp32 bytes written
    tally.add(hbm_write_bytes=bh * nq * d * e_acc)
    if recipe.style == "fa2":
        # FA2 preprocessing kernel: reads O and dO, writes D (fp32)
        tally.add(hbm_read_bytes=bh * nq * d * (e_o + e_do), hbm_write_bytes=bh * nq * e_acc)
    dq_acc = np.zeros((b, h, nq, d), dtype=acc)  # (B, H, Nq, d)
    dk = np.zeros((b, h, nk, d), dtype=prec.storage)  # (B, H, Nk, d)
    dv = np.zeros((b, h, nk, d), dtype=prec.storage)  # (B, H, Nk, d)
    q_tiles, k_tiles = tiles(nq, recipe.block_m), tiles(nk, recipe.block_n)
    for kt in k_tiles:
        c = kt.size
        # K_j and V_j read once per outer step: 2*c*d input bytes
        tally.add(hbm_read_bytes=bh * 2 * c * d * e_in)
        k_j, v_j = ka[:, :, kt.start : kt.stop], va[:, :, kt.start : kt.stop]  # (B, H, c, d)
        dk_j = np.zeros((b, h, c, d), dtype=acc)  # (B, H, c, d)
        dv_j = np.zeros((b, h, c, d), dtype=acc)  # (B, H, c, d)
        for qt in q_tiles:
            tally.add(blocks_total=bh)
            if causal and tile_fully_masked(qt, kt, nq, nk):
                tally.add(blocks_skipped_causal=bh)
                continue
            r = qt.size
            if recipe.style == "fa1":
                # FA1 inner step reads Q_i, O_i, dO_i, dQ_i (fp32), l_i, m_i (fp32) and writes dQ_i (fp32)
                reads = r * d * (e_in + e_o + e_do + e_acc) + 2 * r * e_acc
            else:
                # FA2 inner step reads Q_i, dO_i, lse_i, D_i; dQ_i += ... is an fp32 read-modify-write
                reads = r * d * (e_in + e_do + e_acc) + 2 * r * e_acc
            tally.add(hbm_read_bytes=bh * reads, hbm_write_bytes=bh * r * d * e_acc)
            q_i, do_i = qa[:, :, qt.start : qt.stop], doa[:, :, qt.start : qt.stop]  # (B, H, r, d)
            s = (q_i @ k_j.swapaxes(-1, -2)) * scale_log2  # (B, H, r, c)
            p = exp2_hardware(s - lse2[:, :, qt.start : qt.stop, None])  # (B, H, r, c)
            if causal and tile_needs_mask(qt, kt, nq, nk):
                p = np.where(causal_tile_mask(qt, kt, nq, nk), p, 0.0).astype(acc)  # (B, H, r, c)
            tally.add(exp_hardware=bh * r * c)
            dv_j += round_to(p, prec.storage, acc).swapaxes(-1, -2) @ do_i  # (B, H, c, d)
            dp = do_i @ v_j.swapaxes(-1, -2)  # (B, H, r, c)
            ds = p * (dp - d_rows[:, :, qt.start : qt.stop, None])  # (B, H, r, c)
            ds = round_to(ds, prec.storage, acc)  # (B, H, r, c) dS as the GEMMs' input dtype
            dq_acc[:, :, qt.start : qt.stop] += acc.type(scale) * (ds @ k_j)  # (B, H, r, d)
            dk_j += ds.swapaxes(-1, -2) @ q_i  # (B, H, c, d)
        dk[:, :, kt.start : kt.stop] = (acc.type(scale) * dk_j).astype(prec.storage)
        dv[:, :, kt.start : kt.stop] = dv_j.astype(prec.storage)
        # dK_j and dV_j written once per outer step in the output dtype
        tally.add(hbm_write_bytes=bh * 2 * c * d * e_out)
    # final pass converts the fp32 dQ accumulator to the output dtype
    tally.add(hbm_read_bytes=bh * nq * d * e_acc, hbm_write_bytes=bh * nq * d * e_out)
    return dq_acc.astype(prec.storage), dk, dv, tally.freeze()
