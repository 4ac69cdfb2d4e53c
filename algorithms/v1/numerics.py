"""FlashAttention 1 numerics: Algorithm 1 loop order (K/V outer, Q inner) with O and its statistic kept in HBM.

Forward (FA1 Algorithm 1, with the causal block skipping of its block-sparse variant): for each K/V tile j,
for each Q tile i that sees it, compute `P~ = exp(S_ij - m~)` against the tile's own row max, merge the
statistics and write back the *normalized* `O_i = (l_i e^(m_i - m_new) O_i + e^(m~ - m_new) P~ V_j) / l_new`.
Exponentials are exp2 on log2-scaled scores as in the CUDA kernel. P~ is rounded to the input dtype before
`P~ V_j`. O lives in HBM in the accumulator dtype between steps (the FA1 kernel's fp32 `o_tmp`) and the last
step of each Q tile writes O in the output dtype.

HBM traffic is counted as the released FA1 kernel moves it (FA-repo `fmha_fprop_kernel_1xN.h`, `device_1xN_`
with `Is_first` / `Is_last`), which keeps Algorithm 1's loop but not its line-2 initialization: the first key
block reads no O and no statistic; the one statistic in HBM is the row's running log-sum-exp (fp32, read from
the second key block on and written every step; `m` and `l` of Algorithm 1 are recovered from it on chip); the
last key block a Q tile sees writes O in the output dtype instead of the fp32 `o_tmp`. The values here are
computed from separate `l` and `m`, which is the same number. Backward: FA1 Algorithm 4
(`_numerics.flash_backward`, style "fa1") for the values; its traffic as the released kernel
(`fmha_dgrad_kernel_1xN_loop.h`) moves it: per inner step Q_i, dO_i, lse_i, D_i read; in the first key block
O_i read and D_i = rowsum(dO_i * O_i) written; the fp32 `dq_tmp` read from the second key block on and written
until the last, which writes dQ_i in the output dtype; dK_j, dV_j written once per key block.

Tile sizes (`algorithms.v1.tiles`): by default the released kernel's (`kernel_tiles`: 16 query rows per inner step,
256 keys per block at head dim <= 64 and seqlen_k > 128, else 128); with the option `sram_bytes` (on-chip memory
`M`, counted in elements of the input dtype) Algorithm 1's `block_n = B_c = ceil(M / 4d)`,
`block_m = B_r = min(ceil(M / 4d), d)`; options `block_m`, `block_n` override either. Option `splits` (the v0.2-v1.0
releases' forward grid: a head's query steps over `splits` CTAs, step i to CTA i % splits) changes the forward's
bytes only: K_j, V_j are read once per CTA whose steps see key block j. Ignored: dropout, the grid otherwise (it
changes no number).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._numerics.blocks import causal_tile_mask, tile_fully_masked, tile_needs_mask, tiles
from .._numerics.calls import check_backward_inputs, check_inputs, resolve_scale, with_stats
from .._numerics.exp2 import exp2_hardware
from .._numerics.flash_backward import BackwardRecipe, flash_backward
from .._numerics.options import parse_options, require_positive_int
from .._numerics.precision import Precision, precision_of, round_to
from .._numerics.stats import Tally
from .tiles import block_sizes, kernel_tiles, tile_sizes

__all__ = ["V1Options", "backward", "block_sizes", "forward", "kernel_tiles"]

_ALGO = "v1"
_LOG2E = float(np.log2(np.e))
_LN2 = float(np.log(2.0))


@dataclass(frozen=True)
class V1Options:
    """Optional on-chip memory size (Algorithm 1's block sizes), optional explicit tile sizes, and the forward's
    CTAs per (batch, head) (`splits`: each loads K_j, V_j for its own query steps; 1 when None)."""

    sram_bytes: int | None = None
    block_m: int | None = None
    block_n: int | None = None
    splits: int | None = None

    def __post_init__(self) -> None:
        require_positive_int(_ALGO, "sram_bytes", self.sram_bytes)
        require_positive_int(_ALGO, "block_m", self.block_m)
        require_positive_int(_ALGO, "block_n", self.block_n)
        require_positive_int(_ALGO, "splits", self.splits)


def _blocks(opts: V1Options, headdim: int, seqlen_k: int, prec: Precision) -> tuple[int, int]:
    return tile_sizes(headdim, seqlen_k, prec.input_bytes, opts.sram_bytes, opts.block_m, opts.block_n)


def _exp2_gap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`exp2(a - b)` with 0 where `a` is -inf (b is then -inf too or larger)."""
    b_safe = np.where(np.isneginf(b), 0.0, b)  # (B, H, r)
    return np.where(np.isneginf(a), 0.0, exp2_hardware(a - b_safe)).astype(a.dtype)  # (B, H, r)


def forward(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    causal: bool = False,
    *,
    scale: float | None = None,
    return_stats: bool = False,
    **options: Any,
) -> tuple[Any, ...]:
    """`(o, lse)` (+ `NumericsStats` if `return_stats`); o in the storage dtype, lse in the acc dtype."""
    check_inputs(_ALGO, q, k, v)
    opts = parse_options(_ALGO, V1Options, options)
    prec = precision_of(q, k, v)
    acc = prec.acc
    b, h, nq, d = q.shape
    nk = k.shape[2]
    bh = b * h
    e_in, e_acc, e_out = prec.input_bytes, prec.acc_bytes, prec.storage_bytes
    bm, bn = _blocks(opts, d, nk, prec)
    scale_log2 = acc.type(resolve_scale(scale, d) * _LOG2E)
    qa, ka, va = (x.astype(acc) for x in (q, k, v))  # (B, H, N, d) each
    q_tiles, k_tiles = tiles(nq, bm), tiles(nk, bn)
    visits = {
        qt.index: [kt.index for kt in k_tiles if not (causal and tile_fully_masked(qt, kt, nq, nk))] for qt in q_tiles
    }
    o_hbm = np.zeros((b, h, nq, d), dtype=acc)  # (B, H, Nq, d) O, l, m "in HBM"
    l_hbm = np.zeros((b, h, nq), dtype=acc)  # (B, H, Nq)
    m_hbm = np.full((b, h, nq), -np.inf, dtype=acc)  # (B, H, Nq)
    tally = Tally()
    splits = opts.splits or 1
    for kt in k_tiles:
        c = kt.size
        # line 6: K_j, V_j loaded once per outer step: 2*c*d input bytes, by every split CTA with a query step that
        # sees key block j (the later releases split a head's query steps over `splits` CTAs, step i to CTA i % splits)
        ctas = len({qt.index % splits for qt in q_tiles if kt.index in visits[qt.index]})
        tally.add(hbm_read_bytes=bh * ctas * 2 * c * d * e_in)
        k_j, v_j = ka[:, :, kt.start : kt.stop], va[:, :, kt.start : kt.stop]  # (B, H, c, d)
        for qt in q_tiles:
            tally.add(blocks_total=bh)
            if kt.index not in visits[qt.index]:
                tally.add(blocks_skipped_causal=bh)
                continue
            r, rows = qt.size, slice(qt.start, qt.stop)
            last_visit = kt.index == visits[qt.index][-1]
            # line 8: Q_i read every inner step (r*d input bytes); O_i and lse_i (r*d + r accumulator bytes) from
            # the second key block on (the kernel's Is_first step starts from nothing)
            first_visit = kt.index == visits[qt.index][0]
            tally.add(hbm_read_bytes=bh * (r * d * e_in + (0 if first_visit else (r * d + r) * e_acc)))
            s = (qa[:, :, rows] @ k_j.swapaxes(-1, -2)) * scale_log2  # (B, H, r, c)
            visible = causal_tile_mask(qt, kt, nq, nk) if causal and tile_needs_mask(qt, kt, nq, nk) else None
            if visible is not None:
                s = np.where(visible, s, -np.inf)  # (B, H, r, c)
            m_tile = s.max(axis=-1)  # (B, H, r) m~_ij
            p = exp2_hardware(s - np.where(np.isneginf(m_tile), 0.0, m_tile)[..., None])  # (B, H, r, c)
            if visible is not None:
                p = np.where(visible, p, 0.0).astype(acc)  # (B, H, r, c)
            tally.add(exp_hardware=bh * r * c)
            l_tile = p.sum(axis=-1)  # (B, H, r) l~_ij
            m_old, l_old = m_hbm[:, :, rows], l_hbm[:, :, rows]  # (B, H, r)
            m_new = np.maximum(m_old, m_tile)  # (B, H, r)
            alpha, beta = _exp2_gap(m_old, m_new), _exp2_gap(m_tile, m_new)  # (B, H, r)
            l_new = alpha * l_old + beta * l_tile  # (B, H, r)
            had_state = np.isfinite(m_old)  # (B, H, r)
            tally.add(rescales_performed=np.sum(had_state))
            pv = round_to(p, prec.storage, acc) @ v_j  # (B, H, r, d)
            merged = (l_old * alpha)[..., None] * o_hbm[:, :, rows] + beta[..., None] * pv  # (B, H, r, d)
            with np.errstate(divide="ignore", invalid="ignore"):
                o_new = np.where(l_new[..., None] > 0, merged / l_new[..., None], 0.0)  # (B, H, r, d)
            o_dtype = prec.storage if last_visit else acc
            o_hbm[:, :, rows] = round_to(o_new, o_dtype, acc)
            l_hbm[:, :, rows], m_hbm[:, :, rows] = l_new, m_new
            # line 13: O_i (output dtype on the last visit, else accumulator dtype) and lse_i written back
            tally.add(hbm_write_bytes=bh * (r * d * (e_out if last_visit else e_acc) + r * e_acc))
    # Q tiles that see no key (causal, seqlen_k < seqlen_q): O = 0 and lse = -inf written once
    unseen = sum(qt.size for qt in q_tiles if not visits[qt.index])
    tally.add(hbm_write_bytes=bh * unseen * (d * e_out + e_acc))
    with np.errstate(divide="ignore"):
        lse = np.where(l_hbm > 0, (m_hbm + np.log2(l_hbm)) * _LN2, -np.inf).astype(acc)  # (B, H, Nq)
    return with_stats((o_hbm.astype(prec.storage), lse), tally.freeze(), return_stats)


def backward(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    o: np.ndarray,
    lse: np.ndarray,
    do: np.ndarray,
    causal: bool = False,
    *,
    scale: float | None = None,
    return_stats: bool = False,
    **options: Any,
) -> tuple[Any, ...]:
    """`(dq, dk, dv)` in the storage dtype (+ `NumericsStats` if `return_stats`), FA1 Algorithm 4."""
    check_inputs(_ALGO, q, k, v)
    check_backward_inputs(_ALGO, q, o, lse, do)
    opts = parse_options(_ALGO, V1Options, options)
    prec = precision_of(q, k, v)
    bm, bn = _blocks(opts, q.shape[-1], k.shape[2], prec)
    recipe = BackwardRecipe(block_m=bm, block_n=bn, style="fa1")
    scale = resolve_scale(scale, q.shape[-1])
    dq, dk, dv, stats = flash_backward(q, k, v, o, lse, do, causal, scale, recipe, prec)
    read_bytes, write_bytes = _kernel_backward_bytes(q.shape, k.shape[2], causal, bm, bn, prec)
    stats = dataclasses.replace(stats, hbm_read_bytes=read_bytes, hbm_write_bytes=write_bytes)
    return with_stats((dq, dk, dv), stats, return_stats)


def _kernel_backward_bytes(
    q_shape: tuple[int, ...], nk: int, causal: bool, bm: int, bn: int, prec: Precision
) -> tuple[int, int]:
    """HBM (read, write) bytes of the released FA1 backward kernel over the tiles Algorithm 4 visits."""
    b, h, nq, d = q_shape
    bh = b * h
    e_in, e_acc, e_out = prec.input_bytes, prec.acc_bytes, prec.storage_bytes
    read = write = 0
    q_tiles = tiles(nq, bm)
    seen = {
        qt.index: [kt.index for kt in tiles(nk, bn) if not (causal and tile_fully_masked(qt, kt, nq, nk))]
        for qt in q_tiles
    }
    for kt in tiles(nk, bn):
        read += 2 * kt.size * d * e_in  # K_j, V_j once per key block
        for qt in q_tiles:
            if kt.index not in seen[qt.index]:
                continue
            r, first, last = qt.size, kt.index == seen[qt.index][0], kt.index == seen[qt.index][-1]
            read += 2 * r * d * e_in + 2 * r * e_acc  # Q_i, dO_i; lse_i, D_i
            # first key block: O_i read, D_i written; later ones: the fp32 dq_tmp_i read back
            read += r * d * (e_out if first else e_acc)
            write += r * e_acc if first else 0
            write += r * d * (e_out if last else e_acc)  # dQ_i on the last visit, else dq_tmp_i
        write += 2 * kt.size * d * e_out  # dK_j, dV_j once per key block
    write += sum(qt.size for qt in q_tiles if not seen[qt.index]) * d * e_out  # dQ = 0 where no key is seen
    return bh * read, bh * write
