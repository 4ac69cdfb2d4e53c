// FlashAttention-2 forward (Dao 2023, Algorithm 1) with mma.sync m16n8k16 and cp.async.
//
// Grid (ceil(N / BLOCK_M), batch * heads); one CTA of WARPS warps per BLOCK_M query rows of one head.
// "Split-Q": warp w owns the contiguous query rows [w * 16 * MG, (w + 1) * 16 * MG) of the tile, MG m16
// groups of 16 rows, so the softmax statistics of a row never leave its warp (only quad shuffles).
// A warp's m16 groups share every K/V fragment it loads from shared memory, as FA2 does: at d = 128 (where the O
// accumulators alone take 128 registers per thread) ptxas spills a few registers (about 70 bytes per thread),
// and the kernel executes 83 ldmatrix per warp per key tile instead of 144 (PyTorch's FA2: 80; Nsight Compute,
// validation/h200/torch_fa2_mix_h200.csv). FA2_SHARED_FRAGMENTS=0 builds the groups one after the other, each re-reading
// K/V (no spills; what this kernel did before the sixteenth session: 0.6-4.3% slower at d = 128 on FA2's sweep,
// validation/h200/v2_shared_fragments_h200.csv; this build still takes 1-12% longer than PyTorch's FA2 there).
//
// Pipeline: Q is loaded once; the K/V tiles go through a ring of STAGES shared-memory slots filled by
// cp.async, so the copy of tile j + STAGES - 1 overlaps the two products and the softmax of tile j.
// One __syncthreads per tile: it both publishes tile j and proves every warp is done with tile j - 1,
// whose slot the next prefetch overwrites.
//
// Softmax: exp is computed as ex2.approx(s * scale * log2e - m * scale * log2e), one FFMA + one MUFU per
// score; the running row sum l is kept per thread (partial over its columns) and reduced across the quad
// once at the end, as FA2 does. Causal: key tiles wholly above the diagonal are skipped; only tiles that
// cross the diagonal or the end of the sequence are masked.
//
// Outputs: O (B, H, N, D) in the input dtype, LSE (B, H, N) fp32 in natural log.
#include "../common.cuh"

// Phase timestamps of one CTA, for validation/probes/v2_phases.py only: compiled in when the source is prefixed
// with FA2_PHASE_TRACE (and FA2_TRACE_X, FA2_TRACE_Y, FA2_TRACE_SLOTS), else STAMP and PIN are empty. Lane 0 of
// every warp of CTA (FA2_TRACE_X, FA2_TRACE_Y) writes clock64() at the PH_* points of slot j * PASSES + pass of
// key tile j. PIN makes a stamp wait for the registers it names (an empty asm that reads and writes them), so
// that "max done" means S has arrived and "exp done" means P is packed.
enum Phase { PH_TOP = 0, PH_SYNCED, PH_S_ISSUED, PH_MAX_DONE, PH_EXP_DONE, PH_PV_ISSUED, PHASES };
// Ablated builds, for validation/probes/v2_ablate.py only (results are wrong): FA2_ABLATE is a bit mask of parts
// of the loop taken out, so that the time each part adds to the real kernel can be measured. Values still flow
// where the next part needs them (an empty asm keeps them live).
// Builds of the kernel before the sixteenth session, for validation/probes/v2_shared_fragments.py:
// FA2_SHARED_FRAGMENTS=0 re-reads K/V per m16 group (top of file); FA2_PV_AHEAD=0 loads each V fragment of O += P V
// just before its mmas (gemm_ab_rs) rather than one step ahead (gemm_ab_rs with AHEAD).
#ifndef FA2_SHARED_FRAGMENTS
#define FA2_SHARED_FRAGMENTS 1
#endif
#ifndef FA2_PV_AHEAD
#define FA2_PV_AHEAD 1
#endif
#ifndef FA2_ABLATE
#define FA2_ABLATE 0
#endif
constexpr int ABLATE_LOADS = 1;  // no cp.async of the next K/V tile (every tile re-reads the stages loaded first)
constexpr int ABLATE_EXP = 2;    // P = S * scale - max without MUFU.EX2 (the FFMA, the sum and the packing stay)
constexpr int ABLATE_PV = 4;     // no O += P V (P is still computed)
constexpr int ABLATE_S = 8;      // no S = Q K^T (S is a cheap function of the key index)
#ifdef FA2_PHASE_TRACE
__device__ long long fa2_phase_trace[4][FA2_TRACE_SLOTS][PHASES];
#define PIN(x) pin(x)
#define STAMP(slot, k)                                                                                    \
  do {                                                                                                    \
    if (threadIdx.x % 32 == 0 && threadIdx.x / 32 < 4 && blockIdx.x == FA2_TRACE_X &&                     \
        blockIdx.y == FA2_TRACE_Y && (slot) < FA2_TRACE_SLOTS)                                            \
      fa2_phase_trace[threadIdx.x / 32][(slot)][(k)] = clock64();                                         \
  } while (0)
#else
#define PIN(x) \
  do {         \
  } while (0)
#define STAMP(slot, k) \
  do {                 \
  } while (0)
#endif

// SM phase trace, for validation/probes/v2_sm_phase.py only: compiled in with FA2_SM_PHASE (and
// FA2_SM_PHASE_CTAS, FA2_SM_PHASE_SLOTS), else SM_STAMP is empty. Thread 0 of each of the first FA2_SM_PHASE_CTAS
// CTAs (linear block index) writes its SM's id and clock64() at the top of each of its first FA2_SM_PHASE_SLOTS key
// tiles: co-resident CTAs' loop tops, read on one SM's clock, tell whether they run in step or apart. With
// FA2_SM_PHASE_DELAY > 0, the second CTA to reach each SM (counted in fa2_sm_arrivals) waits that many SM cycles
// before its loop: whether CTAs started apart stay apart, or fall back in step.
#ifdef FA2_SM_PHASE
#ifndef FA2_SM_PHASE_DELAY
#define FA2_SM_PHASE_DELAY 0
#endif
__device__ long long fa2_sm_phase[FA2_SM_PHASE_CTAS][FA2_SM_PHASE_SLOTS + 1];
__device__ int fa2_sm_arrivals[1024];
__device__ __forceinline__ unsigned smid() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}
#define SM_STAMP(j)                                                                                    \
  do {                                                                                                 \
    const int cta = blockIdx.y * gridDim.x + blockIdx.x;                                               \
    if (threadIdx.x == 0 && cta < FA2_SM_PHASE_CTAS && (j) < FA2_SM_PHASE_SLOTS) {                     \
      if ((j) == 0) fa2_sm_phase[cta][FA2_SM_PHASE_SLOTS] = static_cast<long long>(smid());            \
      fa2_sm_phase[cta][(j)] = clock64();                                                              \
    }                                                                                                  \
  } while (0)
#define SM_DELAY()                                                                                     \
  do {                                                                                                 \
    bool second = false;                                                                               \
    if (FA2_SM_PHASE_DELAY > 0 && threadIdx.x == 0) second = atomicAdd(&fa2_sm_arrivals[smid()], 1) == 1; \
    if (__syncthreads_or(second)) {                                                                    \
      const long long t0 = clock64();                                                                  \
      while (clock64() - t0 < FA2_SM_PHASE_DELAY) {                                                    \
      }                                                                                                \
    }                                                                                                  \
  } while (0)
#else
#define SM_STAMP(j) \
  do {              \
  } while (0)
#define SM_DELAY() \
  do {             \
  } while (0)
#endif

// One K/V tile for MGS m16 groups of a warp: S = Q K^T, mask, online softmax, O += P V.
// `row0`: first row of these groups within the CTA's Q tile; `q_row0`/`k_col0`: global row of the Q tile and
// column of the K tile. MASKED: this tile crosses the diagonal (causal) or the end of the sequence (a
// template parameter, so the unmasked steady state carries no mask code or registers). `trace_slot`: where the
// phase trace writes (unused without FA2_PHASE_TRACE).
template <int D, int BLOCK_N, int MGS, bool MASKED, bool IS_CAUSAL, bool IS_BF16>
__device__ __forceinline__ void attend_tile(float (&o_acc)[MGS][D / 8][4], float (&row_max)[MGS][2],
                                            float (&row_sum)[MGS][2], u32 q_base, int row0, u32 k_base,
                                            u32 v_base, int q_row0, int k_col0, int n,
                                            float scale_log2, int lane, int trace_slot) {
  constexpr int LD = D + SMEM_PAD;
  constexpr int NT = BLOCK_N / 8;  // n8 tiles of S per m16 group
  constexpr int DT = D / 8;        // n8 tiles of O per m16 group
  const int g = lane / 4;          // accumulator row within an m16 group (and g + 8)
  const int t = lane % 4;          // accumulator column pair within an n8 tile

  // S = Q K^T (raw, unscaled scores)
  float s[MGS][NT][4];
  if constexpr (FA2_ABLATE & ABLATE_S) {
#pragma unroll
    for (int mg = 0; mg < MGS; ++mg)
#pragma unroll
      for (int nt = 0; nt < NT; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) s[mg][nt][e] = static_cast<float>(k_col0 + nt * 8 + e + lane) * 1e-3f;
  } else {
    gemm_abt_ss<MGS, BLOCK_N, D, IS_BF16>(s, q_base, LD, row0, k_base, LD, lane);
  }
  STAMP(trace_slot, PH_S_ISSUED);

  if constexpr (MASKED) {
    // Column c of row r is kept iff c < limit(r) = n, or min(n, r + 1) when causal.
#pragma unroll
    for (int mg = 0; mg < MGS; ++mg) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = q_row0 + row0 + mg * 16 + g + h * 8;
        const int limit = (IS_CAUSAL ? min(n, row + 1) : n) - k_col0 - 2 * t;  // relative to this thread
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) {
          if (nt * 8 >= limit) s[mg][nt][2 * h] = NEG_INF;
          if (nt * 8 + 1 >= limit) s[mg][nt][2 * h + 1] = NEG_INF;
        }
      }
    }
  }

  // Online softmax: new row max, rescale factor alpha = exp(old max - new max) for the old sum and O, then
  // P = exp(S - max). O is rescaled before the exps are computed: interleaving the two needs more live
  // registers.
  float mx_scaled[MGS][2];
#pragma unroll
  for (int mg = 0; mg < MGS; ++mg) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float mx = row_max[mg][h];
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) mx = fmaxf(mx, fmaxf(s[mg][nt][2 * h], s[mg][nt][2 * h + 1]));
      mx = quad_max(mx);
      // Finite from the first tile on: key tiles go in order from 0, and key 0 is unmasked in every row
      // (causal keeps c <= r, and n >= 1), so no row ever sees a max of -inf (which would give NaN here).
      mx_scaled[mg][h] = mx * scale_log2;
      const float alpha = exp2_approx(row_max[mg][h] * scale_log2 - mx_scaled[mg][h]);
      row_max[mg][h] = mx;
      row_sum[mg][h] *= alpha;
#pragma unroll
      for (int dt = 0; dt < DT; ++dt) {
        o_acc[mg][dt][2 * h] *= alpha;
        o_acc[mg][dt][2 * h + 1] *= alpha;
      }
    }
  }
  PIN(mx_scaled);
  PIN(o_acc);
  STAMP(trace_slot, PH_MAX_DONE);
  u32 p[MGS][NT / 2][4];  // P rounded to 16 bits, as A fragments of the P V product
#pragma unroll
  for (int mg = 0; mg < MGS; ++mg) {
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float x = fmaf(s[mg][nt][e], scale_log2, -mx_scaled[mg][e / 2]);
        s[mg][nt][e] = (FA2_ABLATE & ABLATE_EXP) ? x : exp2_approx(x);
        row_sum[mg][e / 2] += s[mg][nt][e];
      }
    }
#pragma unroll
    for (int kt = 0; kt < NT / 2; ++kt) acc_to_a<IS_BF16>(p[mg][kt], s[mg][2 * kt], s[mg][2 * kt + 1]);
  }
  PIN(p);
  STAMP(trace_slot, PH_EXP_DONE);

  // O += P V, P straight from registers.
  if constexpr (FA2_ABLATE & ABLATE_PV) {
#pragma unroll
    for (int mg = 0; mg < MGS; ++mg) pin(p[mg]);
  } else {
    if constexpr (FA2_PV_AHEAD) {
      gemm_ab_rs<MGS, BLOCK_N, D, IS_BF16, true>(o_acc, p, v_base, lane);
    } else {
      gemm_ab_rs<MGS, BLOCK_N, D, IS_BF16>(o_acc, p, v_base, lane);
    }
  }
  STAMP(trace_slot, PH_PV_ISSUED);
}

// Grid (ceil(N / BLOCK_M), batch * heads), WARPS * 32 threads, dynamic shared memory
// (BLOCK_M + 2 * STAGES * BLOCK_N) * (D + SMEM_PAD) * 2 bytes. `scale` multiplies Q K^T (usually D^-1/2).
template <int D, int BLOCK_M, int BLOCK_N, int WARPS, int STAGES, bool IS_CAUSAL, bool IS_BF16>
__global__ void __launch_bounds__(WARPS * 32)
    fa2_fwd(const u16* __restrict__ q, const u16* __restrict__ k, const u16* __restrict__ v,
            u16* __restrict__ o, float* __restrict__ lse, int n, float scale) {
  constexpr int THREADS = WARPS * 32;
  constexpr int MG = BLOCK_M / (16 * WARPS);   // m16 groups per warp
  constexpr int MGS = FA2_SHARED_FRAGMENTS ? MG : 1;  // m16 groups sharing each K/V fragment (top of file)
  constexpr int PASSES = MG / MGS;
  constexpr int LD = D + SMEM_PAD;
  constexpr int DT = D / 8;
  static_assert(BLOCK_M % (16 * WARPS) == 0 && BLOCK_N % 16 == 0 && D % 16 == 0 && STAGES >= 2, "tile shape");

  extern __shared__ __align__(16) u16 smem[];
  u16* q_s = smem;                        // [BLOCK_M][LD]
  u16* k_s = q_s + BLOCK_M * LD;          // [STAGES][BLOCK_N][LD]
  u16* v_s = k_s + STAGES * BLOCK_N * LD;  // [STAGES][BLOCK_N][LD]

  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int lane = tid % 32;
  const long long head_offset = static_cast<long long>(blockIdx.y) * n * D;
  const u16* k_h = k + head_offset;
  const u16* v_h = v + head_offset;

  const int q_row0 = blockIdx.x * BLOCK_M;
  const int warp_row0 = warp * 16 * MG;  // first row of this warp within the tile
  const int n_blocks_all = (n + BLOCK_N - 1) / BLOCK_N;
  // Causal block skipping: the last key tile needed is the one holding key q_row0 + BLOCK_M - 1.
  const int n_blocks = IS_CAUSAL ? min(n_blocks_all, (q_row0 + BLOCK_M + BLOCK_N - 1) / BLOCK_N) : n_blocks_all;
  // Tiles before n_unmasked lie wholly below the diagonal and inside the sequence: no mask needed.
  const int n_unmasked = IS_CAUSAL ? min(n / BLOCK_N, (q_row0 + 1) / BLOCK_N) : n / BLOCK_N;
  const float scale_log2 = scale * LOG2E;

  // Prologue: Q and the first STAGES - 1 K/V tiles, one commit group per tile (Q rides with tile 0). Empty
  // groups are still committed so that "at most STAGES - 2 groups pending" always means "tile j has landed".
  load_rows_async<BLOCK_M, D, THREADS>(q_s, q + head_offset, q_row0, n, tid);
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < n_blocks) {
      load_rows_async<BLOCK_N, D, THREADS>(k_s + s * BLOCK_N * LD, k_h, s * BLOCK_N, n, tid);
      load_rows_async<BLOCK_N, D, THREADS>(v_s + s * BLOCK_N * LD, v_h, s * BLOCK_N, n, tid);
    }
    cp_async_commit();
  }

  float o_acc[PASSES][MGS][DT][4];
  float row_max[PASSES][MGS][2];  // running max of the raw scores of rows g and g + 8
  float row_sum[PASSES][MGS][2];  // this thread's partial running sum of exp (quad-reduced at the end)
#pragma unroll
  for (int ps = 0; ps < PASSES; ++ps) {
#pragma unroll
    for (int mg = 0; mg < MGS; ++mg) {
#pragma unroll
      for (int dt = 0; dt < DT; ++dt) zero_acc(o_acc[ps][mg][dt]);
      row_max[ps][mg][0] = row_max[ps][mg][1] = NEG_INF;
      row_sum[ps][mg][0] = row_sum[ps][mg][1] = 0.0f;
    }
  }

  SM_DELAY();
  for (int j = 0; j < n_blocks; ++j) {
    STAMP(j * PASSES, PH_TOP);
    SM_STAMP(j);
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    STAMP(j * PASSES, PH_SYNCED);
    {
      const int j_next = j + STAGES - 1;
      if (j_next < n_blocks && !(FA2_ABLATE & ABLATE_LOADS)) {
        const int slot = j_next % STAGES;
        load_rows_async<BLOCK_N, D, THREADS>(k_s + slot * BLOCK_N * LD, k_h, j_next * BLOCK_N, n, tid);
        load_rows_async<BLOCK_N, D, THREADS>(v_s + slot * BLOCK_N * LD, v_h, j_next * BLOCK_N, n, tid);
      }
      cp_async_commit();
    }
    const int slot = j % STAGES;
    const int k_col0 = j * BLOCK_N;
#pragma unroll
    for (int ps = 0; ps < PASSES; ++ps) {
      const u32 k_base = smem_addr(k_s + slot * BLOCK_N * LD);
      const u32 v_base = smem_addr(v_s + slot * BLOCK_N * LD);
      const int row0 = warp_row0 + ps * MGS * 16;
      if (j < n_unmasked) {
        attend_tile<D, BLOCK_N, MGS, false, IS_CAUSAL, IS_BF16>(o_acc[ps], row_max[ps], row_sum[ps], smem_addr(q_s),
                                                               row0, k_base, v_base, q_row0, k_col0, n,
                                                               scale_log2, lane, j * PASSES + ps);
      } else {
        attend_tile<D, BLOCK_N, MGS, true, IS_CAUSAL, IS_BF16>(o_acc[ps], row_max[ps], row_sum[ps], smem_addr(q_s),
                                                              row0, k_base, v_base, q_row0, k_col0, n,
                                                              scale_log2, lane, j * PASSES + ps);
      }
    }
  }

  // Epilogue: O = O / l in the input dtype (each quad writes 16 contiguous bytes per row and n8 tile),
  // LSE = max * scale + ln(l).
  const int g = lane / 4;
  const int t = lane % 4;
  u16* o_h = o + head_offset;
  float* lse_h = lse + static_cast<long long>(blockIdx.y) * n;
#pragma unroll
  for (int ps = 0; ps < PASSES; ++ps) {
#pragma unroll
    for (int mg = 0; mg < MGS; ++mg) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = q_row0 + warp_row0 + (ps * MGS + mg) * 16 + g + h * 8;
        const float l = quad_sum(row_sum[ps][mg][h]);
        if (row >= n) continue;
        const float inv_l = 1.0f / l;
#pragma unroll
        for (int dt = 0; dt < DT; ++dt) {
          *reinterpret_cast<u32*>(o_h + static_cast<long long>(row) * D + dt * 8 + 2 * t) =
              pack2<IS_BF16>(o_acc[ps][mg][dt][2 * h] * inv_l, o_acc[ps][mg][dt][2 * h + 1] * inv_l);
        }
        if (t == 0) lse_h[row] = row_max[ps][mg][h] * scale + logf(l);
      }
    }
  }
}
