// FlashAttention-1 forward in the loop order of Dao et al. 2022, Algorithm 1, with mma.sync m16n8k16.
//
// Grid (batch * heads): one CTA per head. Outer loop over K/V tiles j (BLOCK_N keys, kept in shared memory),
// inner loop over Q tiles i (BLOCK_M rows). Every inner step reads Q_i, O_i, l_i, m_i from HBM and writes
// O_i, l_i, m_i back, exactly as the algorithm's lines 8 and 12-13:
//   S = Q_i K_j^T * scale;  m~ = rowmax(S);  P~ = exp(S - m~);  l~ = rowsum(P~)
//   m_new = max(m_i, m~);   l_new = exp(m_i - m_new) l_i + exp(m~ - m_new) l~
//   O_i = (l_i exp(m_i - m_new) O_i + exp(m~ - m_new) P~ V_j) / l_new
// Working state in HBM: O in fp32 (B, H, N, D) (fp32 so that the repeated read-modify-write does not round
// to 16 bits N / BLOCK_N times), l and m in fp32 (B, H, N), m in log2 units (max * scale * log2e).
// Deviation from line 2 ("initialize O, l, m in HBM"): the first K/V tile starts from O = 0, l = 0,
// m = -inf in registers instead of reading them, and each Q tile's last K/V tile writes the final O (input
// dtype) and LSE (natural log) instead of the working state, saving one read and one write of O.
// Warp w owns the 16 * MG rows [16 MG w, 16 MG (w + 1)) of the Q tile. Causal: K/V tile j only meets the
// Q tiles that reach its first key; tiles crossing the diagonal or the sequence end are masked.
#include "../common.cuh"

// Phase timestamps of one CTA, for validation/probes/v1_phases.py only: compiled in when the source is prefixed
// with FA1_PHASE_TRACE (and FA1_TRACE_CTA, FA1_TRACE_STEPS), else STAMP and PIN are empty. Thread 0 of CTA
// FA1_TRACE_CTA writes clock64() at the PH_* points of its first FA1_TRACE_STEPS steps (key block x query block);
// PIN makes a stamp wait for the registers it names.
enum Phase { PH_TOP = 0, PH_Q_READY, PH_S_DONE, PH_SOFTMAX_DONE, PH_PV_DONE, PH_STATE_READY, PH_STORED, PHASES };
#ifdef FA1_PHASE_TRACE
__device__ long long fa1_phase_trace[FA1_TRACE_STEPS][PHASES];
#define PIN(x) pin(x)
#define STAMP(step, k)                                                                                      \
  do {                                                                                                      \
    if (threadIdx.x == 0 && blockIdx.x == FA1_TRACE_CTA && (step) < FA1_TRACE_STEPS)                        \
      fa1_phase_trace[(step)][(k)] = clock64();                                                             \
  } while (0)
#else
#define PIN(x) \
  do {         \
  } while (0)
#define STAMP(step, k) \
  do {                 \
  } while (0)
#endif

// Grid (batch * heads), WARPS * 32 threads, dynamic shared memory (BLOCK_M + 2 * BLOCK_N) * (D + SMEM_PAD) * 2.
// `__launch_bounds__(..., 1)`: with one CTA per head there is nothing to gain from fitting more CTAs on an SM,
// and without it ptxas caps the kernel at 128 registers and spills at d = 128.
template <int D, int BLOCK_M, int BLOCK_N, int WARPS, bool IS_CAUSAL, bool IS_BF16>
__global__ void __launch_bounds__(WARPS * 32, 1)
    fa1_fwd(const u16* __restrict__ q, const u16* __restrict__ k, const u16* __restrict__ v,
            float* __restrict__ o_work, float* __restrict__ l_work, float* __restrict__ m_work,
            u16* __restrict__ o, float* __restrict__ lse, int n, float scale) {
  constexpr int THREADS = WARPS * 32;
  constexpr int MG = BLOCK_M / (16 * WARPS);
  constexpr int LD = D + SMEM_PAD;
  constexpr int NT = BLOCK_N / 8;
  constexpr int DT = D / 8;
  static_assert(BLOCK_M % (16 * WARPS) == 0 && BLOCK_N % 16 == 0 && D % 16 == 0, "tile shape");

  extern __shared__ __align__(16) u16 smem[];
  u16* q_s = smem;                // [BLOCK_M][LD]
  u16* k_s = q_s + BLOCK_M * LD;  // [BLOCK_N][LD]
  u16* v_s = k_s + BLOCK_N * LD;  // [BLOCK_N][LD]

  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int lane = tid % 32;
  const int g = lane / 4;
  const int t = lane % 4;
  const long long head_offset = static_cast<long long>(blockIdx.x) * n * D;
  const long long row_offset = static_cast<long long>(blockIdx.x) * n;
  const float scale_log2 = scale * LOG2E;
  const int warp_row0 = warp * 16 * MG;
  const int n_k_blocks = (n + BLOCK_N - 1) / BLOCK_N;
  const int n_q_blocks = (n + BLOCK_M - 1) / BLOCK_M;

  int step = 0;  // the CTA's steps so far (the phase trace's index)
  for (int j = 0; j < n_k_blocks; ++j) {
    const int k_col0 = j * BLOCK_N;
    __syncthreads();  // every warp is done with K_{j-1}, V_{j-1} and the last Q tile
    load_rows_async<BLOCK_N, D, THREADS>(k_s, k + head_offset, k_col0, n, tid);
    load_rows_async<BLOCK_N, D, THREADS>(v_s, v + head_offset, k_col0, n, tid);
    cp_async_commit();

    // Causal: Q tiles whose last row is before key k_col0 see none of this K/V tile.
    for (int i = IS_CAUSAL ? k_col0 / BLOCK_M : 0; i < n_q_blocks; ++i) {
      const int q_row0 = i * BLOCK_M;
      STAMP(step, PH_TOP);
      __syncthreads();  // every warp is done with Q_{i-1}
      load_rows_async<BLOCK_M, D, THREADS>(q_s, q + head_offset, q_row0, n, tid);
      cp_async_commit();
      cp_async_wait<0>();
      __syncthreads();
      STAMP(step, PH_Q_READY);

      // This K/V tile is the last one for Q tile i when the next K/V tile is past the end or (causal) past
      // the tile's last row.
      const bool last = j == n_k_blocks - 1 || (IS_CAUSAL && k_col0 + BLOCK_N > q_row0 + BLOCK_M - 1);
      const bool masked = k_col0 + BLOCK_N > n || (IS_CAUSAL && k_col0 + BLOCK_N - 1 > q_row0);

      float s[MG][NT][4];
      gemm_abt_ss<MG, BLOCK_N, D, IS_BF16>(s, smem_addr(q_s), LD, warp_row0, smem_addr(k_s), LD, lane);
      PIN(s);
      STAMP(step, PH_S_DONE);

      float m_tile[MG][2];  // m~ (log2 units)
      float l_tile[MG][2];  // l~ (full row, quad-reduced)
#pragma unroll
      for (int mg = 0; mg < MG; ++mg) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int row = q_row0 + warp_row0 + mg * 16 + g + h * 8;
          const int limit = (IS_CAUSAL ? min(n, row + 1) : n) - k_col0 - 2 * t;
          float mx = NEG_INF;
#pragma unroll
          for (int nt = 0; nt < NT; ++nt) {
            if (masked && nt * 8 >= limit) s[mg][nt][2 * h] = NEG_INF;
            if (masked && nt * 8 + 1 >= limit) s[mg][nt][2 * h + 1] = NEG_INF;
            mx = fmaxf(mx, fmaxf(s[mg][nt][2 * h], s[mg][nt][2 * h + 1]));
          }
          // A causal row before this tile's first key has no unmasked score here: m~ = -inf, and l~ = 0
          // then contributes nothing below; use 0 as the subtrahend so exp2 sees -inf, not NaN.
          mx = quad_max(mx) * scale_log2;
          const float mx_sub = mx == NEG_INF ? 0.0f : mx;
          float sum = 0.0f;
#pragma unroll
          for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
            for (int e = 2 * h; e < 2 * h + 2; ++e) {
              s[mg][nt][e] = exp2_approx(fmaf(s[mg][nt][e], scale_log2, -mx_sub));
              sum += s[mg][nt][e];
            }
          }
          m_tile[mg][h] = mx;
          l_tile[mg][h] = quad_sum(sum);
        }
      }

      PIN(s);
      PIN(l_tile);
      STAMP(step, PH_SOFTMAX_DONE);

      // P~ V_j
      float pv[MG][DT][4];
      {
        u32 p[MG][NT / 2][4];
#pragma unroll
        for (int mg = 0; mg < MG; ++mg) {
#pragma unroll
          for (int dt = 0; dt < DT; ++dt) zero_acc(pv[mg][dt]);
#pragma unroll
          for (int kt = 0; kt < NT / 2; ++kt) acc_to_a<IS_BF16>(p[mg][kt], s[mg][2 * kt], s[mg][2 * kt + 1]);
        }
        gemm_ab_rs<MG, BLOCK_N, D, IS_BF16>(pv, p, smem_addr(v_s), lane);
      }
      PIN(pv);
      STAMP(step, PH_PV_DONE);

      // Read-modify-write of O_i, l_i, m_i (each thread: rows g, g + 8 of each group, 2 columns per n8 tile). Every
      // old value is loaded before any new one is stored, so the loads are in flight together: loaded in the loop
      // that stores, each load would wait behind the previous store (they may alias), one HBM round trip apiece.
      float2 o_old[MG][2][DT];
      float m_old[MG][2], l_old[MG][2];
#pragma unroll
      for (int mg = 0; mg < MG; ++mg) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int row = q_row0 + warp_row0 + mg * 16 + g + h * 8;
          const bool fresh = j == 0 || row >= n;
          const long long r = row_offset + (row < n ? row : 0);
          m_old[mg][h] = fresh ? NEG_INF : m_work[r];
          l_old[mg][h] = fresh ? 0.0f : l_work[r];
#pragma unroll
          for (int dt = 0; dt < DT; ++dt) {
            o_old[mg][h][dt] = fresh ? make_float2(0.0f, 0.0f)
                                     : *reinterpret_cast<const float2*>(o_work + r * D + dt * 8 + 2 * t);
          }
        }
      }
      PIN(o_old);
      PIN(l_old);
      STAMP(step, PH_STATE_READY);
#pragma unroll
      for (int mg = 0; mg < MG; ++mg) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int row = q_row0 + warp_row0 + mg * 16 + g + h * 8;
          if (row >= n) continue;
          const long long r = row_offset + row;
          const float m_new = fmaxf(m_old[mg][h], m_tile[mg][h]);  // finite: key 0 is unmasked in every row
          const float c_old = l_old[mg][h] * exp2_approx(m_old[mg][h] - m_new);
          const float c_tile = exp2_approx(m_tile[mg][h] - m_new);
          const float l_new = c_old + c_tile * l_tile[mg][h];
          const float inv_l = 1.0f / l_new;
#pragma unroll
          for (int dt = 0; dt < DT; ++dt) {
            const long long idx = r * D + dt * 8 + 2 * t;
            const float x0 = (c_old * o_old[mg][h][dt].x + c_tile * pv[mg][dt][2 * h]) * inv_l;
            const float x1 = (c_old * o_old[mg][h][dt].y + c_tile * pv[mg][dt][2 * h + 1]) * inv_l;
            if (last) {
              *reinterpret_cast<u32*>(o + idx) = pack2<IS_BF16>(x0, x1);
            } else {
              *reinterpret_cast<float2*>(o_work + idx) = make_float2(x0, x1);
            }
          }
          if (t == 0) {
            if (last) {
              lse[r] = (m_new + __log2f(l_new)) * LN2;
            } else {
              m_work[r] = m_new;
              l_work[r] = l_new;
            }
          }
        }
      }
      STAMP(step, PH_STORED);
      ++step;
    }
  }
}
