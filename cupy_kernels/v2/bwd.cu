// FlashAttention-2 backward (Dao 2023, Algorithm 2) with mma.sync m16n8k16 and cp.async: three kernels.
//
//   fa2_bwd_preprocess  Delta = rowsum(dO * O) (fp32, (B, H, N)), and zeroes the fp32 dQ accumulator.
//   fa2_bwd             one CTA per BLOCK_N keys of one head ("K/V outer"): K_j, V_j stay in shared memory
//                       while the Q blocks i (BLOCK_M rows) stream through a ring of STAGES slots (Q_i, dO_i,
//                       LSE_i, Delta_i filled by cp.async); dK_j, dV_j accumulate in registers and are written
//                       once; dQ_i += dS K_j * scale goes to the fp32 accumulator with atomicAdd.
//   fa2_bwd_convert_dq  dQ accumulator -> dQ in the input dtype.
//
// Warp w of fa2_bwd owns the 16 keys [16 w, 16 w + 16) of the K/V tile (BLOCK_N = 16 * WARPS), so every
// product whose rows are keys stays in that warp's registers:
//   S^T  = K Q^T          (A = K from smem, B = Q from smem)
//   P^T  = exp(S^T * scale - LSE)            (LSE of the column's query; masked entries 0)
//   dV  += P^T dO         (A = P^T from registers, B = dO from smem via ldmatrix.trans)
//   dP^T = V dO^T         (A = V from smem, B = dO from smem)
//   dS^T = P^T * (dP^T - Delta)
//   dK  += dS^T Q         (A = dS^T from registers, B = Q via ldmatrix.trans)
// dQ's rows are queries, spread over all warps, so dS^T goes through shared memory (one barrier), and each
// warp then computes 16 query rows x 32 columns tasks of dQ = dS K with A = (dS^T)^T via ldmatrix.trans.
#include "../common.cuh"

// One warp per row of (B * H * N) rows; 4 warps per CTA.
template <int D, bool IS_BF16>
__global__ void __launch_bounds__(128)
    fa2_bwd_preprocess(const u16* __restrict__ o, const u16* __restrict__ d_o, float* __restrict__ delta,
                       float* __restrict__ dq_accum, long long rows) {
  const long long row = static_cast<long long>(blockIdx.x) * 4 + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  float acc = 0.0f;
#pragma unroll
  for (int c = 2 * lane; c < D; c += 64) {  // 4-byte pairs, coalesced across the warp
    const u32 a = *reinterpret_cast<const u32*>(o + row * D + c);
    const u32 b = *reinterpret_cast<const u32*>(d_o + row * D + c);
    acc += to_float<IS_BF16>(a & 0xffffu) * to_float<IS_BF16>(b & 0xffffu) +
           to_float<IS_BF16>(a >> 16) * to_float<IS_BF16>(b >> 16);
  }
#pragma unroll
  for (int off = 16; off > 0; off /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, off);
  if (lane == 0) delta[row] = acc;
#pragma unroll
  for (int c = lane; c < D; c += 32) dq_accum[row * D + c] = 0.0f;
}

// Grid-stride conversion of `count` (even) fp32 values to 16-bit pairs.
template <bool IS_BF16>
__global__ void fa2_bwd_convert_dq(const float* __restrict__ dq_accum, u16* __restrict__ dq, long long count) {
  for (long long i = 2 * (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x); i < count;
       i += 2LL * gridDim.x * blockDim.x) {
    const float2 x = *reinterpret_cast<const float2*>(dq_accum + i);
    *reinterpret_cast<u32*>(dq + i) = pack2<IS_BF16>(x.x, x.y);
  }
}

// Grid (ceil(N / BLOCK_N), batch * heads), WARPS * 32 threads, dynamic shared memory
// (2 * BLOCK_N + 2 * STAGES * BLOCK_M) * (D + SMEM_PAD) * 2 + BLOCK_N * (BLOCK_M + SMEM_PAD) * 2
// + 2 * STAGES * BLOCK_M * 4 bytes.
template <int D, int BLOCK_M, int BLOCK_N, int WARPS, int STAGES, bool IS_CAUSAL, bool IS_BF16>
__global__ void __launch_bounds__(WARPS * 32)
    fa2_bwd(const u16* __restrict__ q, const u16* __restrict__ k, const u16* __restrict__ v,
            const u16* __restrict__ d_o, const float* __restrict__ lse, const float* __restrict__ delta,
            float* __restrict__ dq_accum, u16* __restrict__ dk, u16* __restrict__ dv, int n, float scale) {
  constexpr int THREADS = WARPS * 32;
  constexpr int LD = D + SMEM_PAD;
  constexpr int LDS = BLOCK_M + SMEM_PAD;  // row stride of the dS^T tile
  constexpr int MT = BLOCK_M / 8;          // n8 tiles of S^T per warp (columns are queries)
  constexpr int DT = D / 8;
  static_assert(BLOCK_N == 16 * WARPS && BLOCK_M % 16 == 0 && D % 32 == 0 && STAGES >= 2, "tile shape");

  extern __shared__ __align__(16) u16 smem[];
  u16* k_s = smem;                          // [BLOCK_N][LD]
  u16* v_s = k_s + BLOCK_N * LD;            // [BLOCK_N][LD]
  u16* q_s = v_s + BLOCK_N * LD;            // [STAGES][BLOCK_M][LD]
  u16* do_s = q_s + STAGES * BLOCK_M * LD;  // [STAGES][BLOCK_M][LD]
  u16* ds_s = do_s + STAGES * BLOCK_M * LD; // [BLOCK_N][LDS]: dS^T of the current Q block
  float* lse_s = reinterpret_cast<float*>(ds_s + BLOCK_N * LDS);  // [STAGES][BLOCK_M]
  float* delta_s = lse_s + STAGES * BLOCK_M;                        // [STAGES][BLOCK_M]

  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int lane = tid % 32;
  const int g = lane / 4;
  const int t = lane % 4;
  const long long head_offset = static_cast<long long>(blockIdx.y) * n * D;
  const u16* q_h = q + head_offset;
  const u16* do_h = d_o + head_offset;
  const float* lse_h = lse + static_cast<long long>(blockIdx.y) * n;
  const float* delta_h = delta + static_cast<long long>(blockIdx.y) * n;
  float* dq_h = dq_accum + head_offset;

  const int k_row0 = blockIdx.x * BLOCK_N;
  const int warp_key0 = warp * 16;
  const int n_m_blocks = (n + BLOCK_M - 1) / BLOCK_M;
  // Causal: Q blocks wholly above the diagonal (every query < every key of this tile) are skipped.
  const int m_block0 = IS_CAUSAL ? k_row0 / BLOCK_M : 0;
  const float scale_log2 = scale * LOG2E;

  // Q_i, dO_i, LSE_i, Delta_i of block i into ring slot `slot`. LSE/Delta rows past n are zero-filled; those
  // queries are masked, so the value does not matter.
  auto load_q_block = [&](int i, int slot) {
    load_rows_async<BLOCK_M, D, THREADS>(q_s + slot * BLOCK_M * LD, q_h, i * BLOCK_M, n, tid);
    load_rows_async<BLOCK_M, D, THREADS>(do_s + slot * BLOCK_M * LD, do_h, i * BLOCK_M, n, tid);
    for (int r = tid; r < BLOCK_M; r += THREADS) {
      const int row = i * BLOCK_M + r;
      const bool valid = row < n;
      const int src_bytes = valid ? 4 : 0;
      const int src_row = valid ? row : 0;
      asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(smem_addr(lse_s + slot * BLOCK_M + r)),
                   "l"(lse_h + src_row), "r"(src_bytes));
      asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(smem_addr(delta_s + slot * BLOCK_M + r)),
                   "l"(delta_h + src_row), "r"(src_bytes));
    }
  };

  // Prologue: K_j and V_j ride with the first Q block's group; one group per block, empty ones included.
  load_rows_async<BLOCK_N, D, THREADS>(k_s, k + head_offset, k_row0, n, tid);
  load_rows_async<BLOCK_N, D, THREADS>(v_s, v + head_offset, k_row0, n, tid);
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (m_block0 + s < n_m_blocks) load_q_block(m_block0 + s, s);
    cp_async_commit();
  }

  float dk_acc[1][DT][4];
  float dv_acc[1][DT][4];
#pragma unroll
  for (int dt = 0; dt < DT; ++dt) {
    zero_acc(dk_acc[0][dt]);
    zero_acc(dv_acc[0][dt]);
  }

  for (int i = m_block0; i < n_m_blocks; ++i) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();  // block i landed; every warp is done with block i - 1 (its slot and the dS^T tile)
    {
      const int i_next = i + STAGES - 1;
      if (i_next < n_m_blocks) load_q_block(i_next, (i_next - m_block0) % STAGES);
      cp_async_commit();
    }
    const int slot = (i - m_block0) % STAGES;
    const u32 q_base = smem_addr(q_s + slot * BLOCK_M * LD);
    const u32 do_base = smem_addr(do_s + slot * BLOCK_M * LD);
    const float* lse_i = lse_s + slot * BLOCK_M;
    const float* delta_i = delta_s + slot * BLOCK_M;
    const int q_row0 = i * BLOCK_M;

    // S^T = K Q^T, then P^T in place. At d = 128 the dK and dV accumulators leave no registers for loading the
    // next k step's K fragments ahead (A_AHEAD; it spills), so only the Q fragments are loaded one tile ahead.
    float p[1][MT][4];
    gemm_abt_ss<1, BLOCK_M, D, IS_BF16, (D <= 64)>(p, smem_addr(k_s), LD, warp_key0, q_base, LD, lane);
    const bool masked = q_row0 + BLOCK_M > n || k_row0 + BLOCK_N > n || (IS_CAUSAL && q_row0 < k_row0 + BLOCK_N - 1);
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int col = mt * 8 + 2 * t + (e % 2);  // query within the block
        const int key = k_row0 + warp_key0 + g + (e / 2) * 8;
        const int query = q_row0 + col;
        p[0][mt][e] = exp2_approx(fmaf(p[0][mt][e], scale_log2, -lse_i[col] * LOG2E));
        if (masked && (query >= n || key >= n || (IS_CAUSAL && query < key))) p[0][mt][e] = 0.0f;
      }
    }

    // dV += P^T dO
    {
      u32 a[1][MT / 2][4];
#pragma unroll
      for (int kt = 0; kt < MT / 2; ++kt) acc_to_a<IS_BF16>(a[0][kt], p[0][2 * kt], p[0][2 * kt + 1]);
      gemm_ab_rs<1, BLOCK_M, D, IS_BF16>(dv_acc, a, do_base, lane);
    }

    // dP^T = V dO^T, then dS^T = P^T (dP^T - Delta) in place.
    float ds[1][MT][4];
    gemm_abt_ss<1, BLOCK_M, D, IS_BF16, (D <= 64)>(ds, smem_addr(v_s), LD, warp_key0, do_base, LD, lane);
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
      for (int e = 0; e < 4; ++e) ds[0][mt][e] = p[0][mt][e] * (ds[0][mt][e] - delta_i[mt * 8 + 2 * t + (e % 2)]);
    }

    // dK += dS^T Q, and dS^T to shared memory for dQ (each quad stores 16 contiguous bytes per row).
    {
      u32 a[1][MT / 2][4];
#pragma unroll
      for (int kt = 0; kt < MT / 2; ++kt) acc_to_a<IS_BF16>(a[0][kt], ds[0][2 * kt], ds[0][2 * kt + 1]);
      gemm_ab_rs<1, BLOCK_M, D, IS_BF16>(dk_acc, a, q_base, lane);
#pragma unroll
      for (int kt = 0; kt < MT / 2; ++kt) {
        u32* row_g = reinterpret_cast<u32*>(ds_s + (warp_key0 + g) * LDS + kt * 16 + 2 * t);
        u32* row_g8 = reinterpret_cast<u32*>(ds_s + (warp_key0 + g + 8) * LDS + kt * 16 + 2 * t);
        row_g[0] = a[0][kt][0];
        row_g8[0] = a[0][kt][1];
        row_g[4] = a[0][kt][2];  // + 8 columns
        row_g8[4] = a[0][kt][3];
      }
    }
    __syncthreads();  // dS^T complete

    // dQ_i += dS K * scale: tasks of 16 query rows x 32 columns, round-robin over the warps.
    constexpr int ROW_GROUPS = BLOCK_M / 16;
    constexpr int TASKS = ROW_GROUPS * (D / 32);
    for (int task = warp; task < TASKS; task += WARPS) {
      const int m0 = (task % ROW_GROUPS) * 16;
      const int n0 = (task / ROW_GROUPS) * 32;
      float acc[4][4];
#pragma unroll
      for (int nt = 0; nt < 4; ++nt) zero_acc(acc[nt]);
#pragma unroll
      for (int k0 = 0; k0 < BLOCK_N; k0 += 16) {
        u32 a[4];
        load_a_trans(a, smem_addr(ds_s), LDS, m0, k0, lane);
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          u32 b[4];
          load_b_trans(b, smem_addr(k_s), LD, n0 + half * 16, k0, lane);
          mma16816<IS_BF16>(acc[2 * half], a, b[0], b[1]);
          mma16816<IS_BF16>(acc[2 * half + 1], a, b[2], b[3]);
        }
      }
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int query = q_row0 + m0 + g + h * 8;
        if (query >= n) continue;
#pragma unroll
        for (int nt = 0; nt < 4; ++nt) {
          float* dst = dq_h + static_cast<long long>(query) * D + n0 + nt * 8 + 2 * t;
          atomicAdd(dst, acc[nt][2 * h] * scale);
          atomicAdd(dst + 1, acc[nt][2 * h + 1] * scale);
        }
      }
    }
  }

  // dK = scale * dS^T Q, dV: one write per CTA.
  const long long kv_offset = head_offset;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int key = k_row0 + warp_key0 + g + h * 8;
    if (key >= n) continue;
#pragma unroll
    for (int dt = 0; dt < DT; ++dt) {
      const long long idx = kv_offset + static_cast<long long>(key) * D + dt * 8 + 2 * t;
      *reinterpret_cast<u32*>(dk + idx) = pack2<IS_BF16>(dk_acc[0][dt][2 * h] * scale, dk_acc[0][dt][2 * h + 1] * scale);
      *reinterpret_cast<u32*>(dv + idx) = pack2<IS_BF16>(dv_acc[0][dt][2 * h], dv_acc[0][dt][2 * h + 1]);
    }
  }
}
