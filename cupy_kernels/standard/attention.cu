// Standard attention as a framework runs it: three kernels, S and P through HBM.
//
//   std_qk       S = Q K^T * scale, in the input dtype, masked entries (causal) written as -inf
//   std_softmax  P = softmax(S) row by row, in the input dtype, and LSE (fp32, natural log)
//   std_pv       O = P V
//
// S and P are (B, H, N, LDS) with LDS = N rounded up to a multiple of 8, so every row starts 16-byte aligned;
// std_softmax writes zeros into P's padding columns, so std_pv can read whole 16-byte chunks.
// Like cuBLAS-based standard attention, nothing is skipped for causal masking: every tile of S is computed
// and the masked half of P is multiplied by V.
#include "../common.cuh"

// Per-CTA timestamps of std_qk, for validation/probes/std_qk_ctas.py only: compiled in when the source is prefixed
// with STD_CTA_TRACE (and STD_TRACE_CTAS). Thread 0 writes the SM id and clock64() (a per-SM counter: stamps compare
// only within one SM) at the CTA's entry and once all its threads have issued their stores.
#ifdef STD_CTA_TRACE
__device__ long long std_cta_trace[STD_TRACE_CTAS][3];
__device__ __forceinline__ long long* std_cta_row() {
  const long long cta = (static_cast<long long>(blockIdx.z) * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  return cta < STD_TRACE_CTAS ? std_cta_trace[cta] : nullptr;
}
#endif

// Ablated builds of std_qk, for validation/probes/std_kernels.py only (results are wrong): STD_QK_ABLATE is a bit
// mask of parts taken out: 1 the loads of Q and K (the product reads whatever smem holds), 2 the product (the
// accumulators are made from indices), 4 the epilogue's scale, mask and pack (the accumulator's bits are stored),
// 8 the stores (the packed words XORed into one, stored once).
#ifndef STD_QK_ABLATE
#define STD_QK_ABLATE 0
#endif
constexpr int QK_ABLATE_LOADS = 1;
constexpr int QK_ABLATE_MMA = 2;
constexpr int QK_ABLATE_EPILOGUE = 4;
constexpr int QK_ABLATE_STORES = 8;

// Grid (ceil(N / BLOCK_N), ceil(N / BLOCK_M), batch * heads), WARPS * 32 threads, dynamic shared memory
// (BLOCK_M + BLOCK_N) * (D + SMEM_PAD) * 2 bytes. One CTA computes a BLOCK_M x BLOCK_N tile of S; D is small
// enough (<= 128) for both operand tiles to fit in shared memory whole, so there is no k loop to pipeline.
template <int D, int BLOCK_M, int BLOCK_N, int WARPS, bool IS_CAUSAL, bool IS_BF16>
__global__ void __launch_bounds__(WARPS * 32)
    std_qk(const u16* __restrict__ q, const u16* __restrict__ k, u16* __restrict__ s, int n, int lds,
           float scale) {
  constexpr int THREADS = WARPS * 32;
  constexpr int MG = BLOCK_M / (16 * WARPS);
  constexpr int LD = D + SMEM_PAD;
  constexpr int NT = BLOCK_N / 8;
  static_assert(BLOCK_M % (16 * WARPS) == 0 && BLOCK_N % 16 == 0 && D % 16 == 0, "tile shape");

  extern __shared__ __align__(16) u16 smem[];
  u16* q_s = smem;                // [BLOCK_M][LD]
  u16* k_s = q_s + BLOCK_M * LD;  // [BLOCK_N][LD]

  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int lane = tid % 32;
  const int g = lane / 4;
  const int t = lane % 4;
  const long long head_offset = static_cast<long long>(blockIdx.z) * n * D;
  const int q_row0 = blockIdx.y * BLOCK_M;
  const int k_col0 = blockIdx.x * BLOCK_N;
  const int warp_row0 = warp * 16 * MG;
#ifdef STD_CTA_TRACE
  if (tid == 0) {
    long long* row_ = std_cta_row();
    unsigned sm_;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm_));
    if (row_ != nullptr) {
      row_[0] = sm_;
      row_[1] = static_cast<long long>(clock64());
    }
  }
#endif

  if constexpr ((STD_QK_ABLATE & QK_ABLATE_LOADS) == 0) {
    load_rows_async<BLOCK_M, D, THREADS>(q_s, q + head_offset, q_row0, n, tid);
    load_rows_async<BLOCK_N, D, THREADS>(k_s, k + head_offset, k_col0, n, tid);
  }
  cp_async_commit();
  cp_async_wait<0>();
  __syncthreads();

  float acc[MG][NT][4];
  if constexpr ((STD_QK_ABLATE & QK_ABLATE_MMA) != 0) {
#pragma unroll
    for (int mg = 0; mg < MG; ++mg) {
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          acc[mg][nt][e] = static_cast<float>(mg + nt + e + tid);
          asm volatile("" : "+f"(acc[mg][nt][e]));
        }
      }
    }
  } else {
    gemm_abt_ss<MG, BLOCK_N, D, IS_BF16>(acc, smem_addr(q_s), LD, warp_row0, smem_addr(k_s), LD, lane);
  }
  u32 sink = 0;  // QK_ABLATE_STORES only: what keeps the packed values from being dropped

  // Epilogue: scale, mask, round, store pairs. A pair starting at an even column < n may spill one element
  // into the padding column n (odd n), which the softmax ignores.
  u16* s_h = s + static_cast<long long>(blockIdx.z) * n * lds;
#pragma unroll
  for (int mg = 0; mg < MG; ++mg) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = q_row0 + warp_row0 + mg * 16 + g + h * 8;
      if (row >= n) continue;
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) {
        const int col = k_col0 + nt * 8 + 2 * t;
        if (col >= n) continue;
        u32 packed;
        if constexpr ((STD_QK_ABLATE & QK_ABLATE_EPILOGUE) != 0) {
          packed = __float_as_uint(acc[mg][nt][2 * h]);
        } else {
          const float x0 = IS_CAUSAL && col > row ? NEG_INF : acc[mg][nt][2 * h] * scale;
          const float x1 = IS_CAUSAL && col + 1 > row ? NEG_INF : acc[mg][nt][2 * h + 1] * scale;
          packed = pack2<IS_BF16>(x0, x1);
        }
        if constexpr ((STD_QK_ABLATE & QK_ABLATE_STORES) != 0) {
          sink ^= packed;
        } else {
          *reinterpret_cast<u32*>(s_h + static_cast<long long>(row) * lds + col) = packed;
        }
      }
    }
  }
  if constexpr ((STD_QK_ABLATE & QK_ABLATE_STORES) != 0) {
    if (sink == 0x9e3779b9u) s[0] = 1;
  }
#ifdef STD_CTA_TRACE
  __syncthreads();
  if (tid == 0) {
    long long* row_ = std_cta_row();
    if (row_ != nullptr) row_[2] = static_cast<long long>(clock64());
  }
#endif
}

// One warp per row, WARPS rows per CTA; grid ceil(B * H * N / WARPS). Two passes over the row (the second
// mostly hits L1/L2): an online max/sum with 16-byte loads (8 elements per lane), then P = exp(S - max) / sum.
template <int WARPS, bool IS_BF16>
__global__ void __launch_bounds__(WARPS * 32)
    std_softmax(const u16* __restrict__ s, u16* __restrict__ p, float* __restrict__ lse, int n, int lds,
                long long rows) {
  const long long row = static_cast<long long>(blockIdx.x) * WARPS + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  const u16* s_row = s + row * lds;
  u16* p_row = p + row * lds;

  // Pass 1: per-lane running max (log2 units) and sum, then combined across the warp.
  float mx = NEG_INF;
  float sum = 0.0f;
  for (int c0 = 8 * lane; c0 < n; c0 += 256) {
    const uint4 chunk = *reinterpret_cast<const uint4*>(s_row + c0);
    const u32 w[4] = {chunk.x, chunk.y, chunk.z, chunk.w};
    float x[8];
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      const u16 bits = static_cast<u16>(e % 2 ? w[e / 2] >> 16 : w[e / 2] & 0xffffu);
      x[e] = c0 + e < n ? to_float<IS_BF16>(bits) * LOG2E : NEG_INF;
    }
    float cmx = mx;
#pragma unroll
    for (int e = 0; e < 8; ++e) cmx = fmaxf(cmx, x[e]);
    // Causal rows start with masked (-inf) chunks: subtract 0 instead of -inf so that exp2 gives 0, not NaN.
    const float sub = cmx == NEG_INF ? 0.0f : cmx;
    float csum = 0.0f;
#pragma unroll
    for (int e = 0; e < 8; ++e) csum += exp2_approx(x[e] - sub);
    sum = sum * exp2_approx(mx - sub) + csum;
    mx = cmx;
  }
#pragma unroll
  for (int off = 16; off > 0; off /= 2) {
    const float o_mx = __shfl_xor_sync(0xffffffffu, mx, off);
    const float o_sum = __shfl_xor_sync(0xffffffffu, sum, off);
    const float new_mx = fmaxf(mx, o_mx);
    // Lanes that saw no column (n < 256) or only masked ones carry mx = -inf and sum = 0.
    sum = (mx == NEG_INF ? 0.0f : sum * exp2_approx(mx - new_mx)) +
          (o_mx == NEG_INF ? 0.0f : o_sum * exp2_approx(o_mx - new_mx));
    mx = new_mx;
  }
  const float inv_sum = 1.0f / sum;
  if (lane == 0) lse[row] = (mx + __log2f(sum)) * LN2;

  // Pass 2: P, with zeros in the padding columns [n, lds).
  for (int c0 = 8 * lane; c0 < lds; c0 += 256) {
    const uint4 chunk = *reinterpret_cast<const uint4*>(s_row + c0);
    const u32 w[4] = {chunk.x, chunk.y, chunk.z, chunk.w};
    u32 out[4];
#pragma unroll
    for (int e = 0; e < 8; e += 2) {
      const float x0 = to_float<IS_BF16>(static_cast<u16>(w[e / 2] & 0xffffu)) * LOG2E;
      const float x1 = to_float<IS_BF16>(static_cast<u16>(w[e / 2] >> 16)) * LOG2E;
      const float p0 = c0 + e < n ? exp2_approx(x0 - mx) * inv_sum : 0.0f;
      const float p1 = c0 + e + 1 < n ? exp2_approx(x1 - mx) * inv_sum : 0.0f;
      out[e / 2] = pack2<IS_BF16>(p0, p1);
    }
    *reinterpret_cast<uint4*>(p_row + c0) = make_uint4(out[0], out[1], out[2], out[3]);
  }
}

// Ablated builds of std_pv, for validation/probes/std_kernels.py only (results are wrong): STD_PV_ABLATE is a bit
// mask of parts of the k loop taken out, so that the time each part adds to the real kernel can be measured.
#ifndef STD_PV_ABLATE
#define STD_PV_ABLATE 0
#endif
constexpr int PV_ABLATE_LOADS = 1;  // no cp.async of the next P/V block (every step re-reads the stages loaded first)
constexpr int PV_ABLATE_MMA = 2;    // no ldmatrix or mma.sync (O stays zero)
constexpr int PV_ABLATE_LDMATRIX = 4;  // mma.sync on register fragments made from the step's indices, no ldmatrix
constexpr int PV_ABLATE_HMMA = 8;      // ldmatrix without mma.sync (the fragments XORed into one word, stored once)

__device__ __forceinline__ void pv_ablate_fragment(u32 (&f)[4], int seed) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    f[i] = static_cast<u32>(seed + i) * 0x3c003c00u;
    asm volatile("" : "+r"(f[i]));
  }
}

// Grid (ceil(N / BLOCK_M), batch * heads), WARPS * 32 threads, dynamic shared memory
// STAGES * (BLOCK_M * (BLOCK_N + SMEM_PAD) + BLOCK_N * (D + SMEM_PAD)) * 2 bytes. One CTA computes BLOCK_M
// rows of O; the k loop runs over key chunks of BLOCK_N, P and V tiles double-buffered through cp.async.
template <int D, int BLOCK_M, int BLOCK_N, int WARPS, int STAGES, bool IS_BF16>
__global__ void __launch_bounds__(WARPS * 32)
    std_pv(const u16* __restrict__ p, const u16* __restrict__ v, u16* __restrict__ o, int n, int lds) {
  constexpr int THREADS = WARPS * 32;
  constexpr int MG = BLOCK_M / (16 * WARPS);
  constexpr int LDP = BLOCK_N + SMEM_PAD;
  constexpr int LDV = D + SMEM_PAD;
  constexpr int DT = D / 8;
  static_assert(BLOCK_M % (16 * WARPS) == 0 && BLOCK_N % 16 == 0 && D % 16 == 0 && STAGES >= 2, "tile shape");

  extern __shared__ __align__(16) u16 smem[];
  u16* p_s = smem;                            // [STAGES][BLOCK_M][LDP]
  u16* v_s = p_s + STAGES * BLOCK_M * LDP;    // [STAGES][BLOCK_N][LDV]

  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int lane = tid % 32;
  const int g = lane / 4;
  const int t = lane % 4;
  const u16* p_h = p + static_cast<long long>(blockIdx.y) * n * lds;
  const u16* v_h = v + static_cast<long long>(blockIdx.y) * n * D;
  const int q_row0 = blockIdx.x * BLOCK_M;
  const int warp_row0 = warp * 16 * MG;
  const int n_blocks = (n + BLOCK_N - 1) / BLOCK_N;

  // P columns past lds and V rows past n are zero-filled; P's padding columns [n, lds) hold zeros.
  auto load_block = [&](int j, int slot) {
    load_tile_async<BLOCK_M, BLOCK_N, THREADS>(p_s + slot * BLOCK_M * LDP, p_h, lds, q_row0, n, j * BLOCK_N, lds,
                                               tid);
    load_rows_async<BLOCK_N, D, THREADS>(v_s + slot * BLOCK_N * LDV, v_h, j * BLOCK_N, n, tid);
  };
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < n_blocks) load_block(s, s);
    cp_async_commit();
  }

  float acc[MG][DT][4];
#pragma unroll
  for (int mg = 0; mg < MG; ++mg) {
#pragma unroll
    for (int dt = 0; dt < DT; ++dt) zero_acc(acc[mg][dt]);
  }

  u32 sink = 0;  // PV_ABLATE_HMMA only: what keeps the ldmatrix results from being dropped
  for (int j = 0; j < n_blocks; ++j) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();  // block j landed; every warp is done with block j - 1, whose slot is refilled next
    if (!(STD_PV_ABLATE & PV_ABLATE_LOADS) && j + STAGES - 1 < n_blocks) {
      load_block(j + STAGES - 1, (j + STAGES - 1) % STAGES);
    }
    cp_async_commit();
    if (STD_PV_ABLATE & PV_ABLATE_MMA) continue;
    const int slot = j % STAGES;
    const u32 p_base = smem_addr(p_s + slot * BLOCK_M * LDP);
    const u32 v_base = smem_addr(v_s + slot * BLOCK_N * LDV);
#pragma unroll
    for (int k0 = 0; k0 < BLOCK_N; k0 += 16) {
      u32 a[MG][4];
#pragma unroll
      for (int mg = 0; mg < MG; ++mg) {
        if constexpr ((STD_PV_ABLATE & PV_ABLATE_LDMATRIX) != 0) {
          pv_ablate_fragment(a[mg], j + k0 + mg);
        } else {
          load_a(a[mg], p_base, LDP, warp_row0 + mg * 16, k0, lane);
        }
      }
#pragma unroll
      for (int n0 = 0; n0 < D; n0 += 16) {
        u32 b[4];
        if constexpr ((STD_PV_ABLATE & PV_ABLATE_LDMATRIX) != 0) {
          pv_ablate_fragment(b, j + k0 + n0);
        } else {
          load_b_trans(b, v_base, LDV, n0, k0, lane);
        }
#pragma unroll
        for (int mg = 0; mg < MG; ++mg) {
          if constexpr ((STD_PV_ABLATE & PV_ABLATE_HMMA) != 0) {
            sink ^= a[mg][0] ^ a[mg][1] ^ a[mg][2] ^ a[mg][3] ^ b[0] ^ b[1] ^ b[2] ^ b[3];
          } else {
            mma16816<IS_BF16>(acc[mg][n0 / 8], a[mg], b[0], b[1]);
            mma16816<IS_BF16>(acc[mg][n0 / 8 + 1], a[mg], b[2], b[3]);
          }
        }
      }
    }
  }

  if constexpr ((STD_PV_ABLATE & PV_ABLATE_HMMA) != 0) {
    if (sink == 0x9e3779b9u) o[0] = 1;
  }
  u16* o_h = o + static_cast<long long>(blockIdx.y) * n * D;
#pragma unroll
  for (int mg = 0; mg < MG; ++mg) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = q_row0 + warp_row0 + mg * 16 + g + h * 8;
      if (row >= n) continue;
#pragma unroll
      for (int dt = 0; dt < DT; ++dt) {
        *reinterpret_cast<u32*>(o_h + static_cast<long long>(row) * D + dt * 8 + 2 * t) =
            pack2<IS_BF16>(acc[mg][dt][2 * h], acc[mg][dt][2 * h + 1]);
      }
    }
  }
}
