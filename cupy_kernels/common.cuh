// Device helpers shared by every kernel family: element conversion, the m16n8k16 tensor-core instruction,
// ldmatrix fragment loaders, cp.async tile copies and exp2.
//
// Elements are 16-bit (bf16 or fp16) and travel as raw `unsigned short` bits, so the kernels need neither
// cuda_bf16.h nor cuda_fp16.h (NVRTC compiles them with no include path); conversions are single PTX
// instructions. `IS_BF16` picks bf16 (true) or fp16 (false) at compile time.
//
// Shared-memory tiles are row-major with a row stride of (columns + SMEM_PAD) elements. The 16-byte pad shifts
// consecutive rows by 4 banks, so the 8 row addresses of one ldmatrix phase (8 rows x 16 bytes) land in 8
// different 16-byte bank groups: conflict-free without a swizzle.
#pragma once

typedef unsigned short u16;
typedef unsigned int u32;

#define SMEM_PAD 8  // elements (16 bytes) added to every shared-memory row
#define NEG_INF __int_as_float(0xff800000)
#define POS_INF __int_as_float(0x7f800000)
#define LOG2E 1.4426950408889634f
#define LN2 0.6931471805599453f

// ---------------------------------------------------------------------------------------------------------
// Element conversion
// ---------------------------------------------------------------------------------------------------------

// Two floats -> one 32-bit register holding two 16-bit elements, `lo` in the low half (lower column index).
template <bool IS_BF16>
__device__ __forceinline__ u32 pack2(float lo, float hi) {
  u32 r;
  // cvt.rn.{bf16,f16}x2.f32 d, a, b puts a in the upper half and b in the lower half.
  if constexpr (IS_BF16) {
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  } else {
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  }
  return r;
}

template <bool IS_BF16>
__device__ __forceinline__ float to_float(u16 x) {
  if constexpr (IS_BF16) {
    return __uint_as_float(static_cast<u32>(x) << 16);
  } else {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(x));
    return f;
  }
}

template <bool IS_BF16>
__device__ __forceinline__ u16 from_float(float f) {
  return static_cast<u16>(pack2<IS_BF16>(f, 0.0f) & 0xffffu);
}

// 2^x on the MUFU unit (ex2.approx: ~2 ulp, flushes denormals; exp(x) is computed as 2^(x*log2e)).
__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// ---------------------------------------------------------------------------------------------------------
// Tensor core: D = A (16x16, row) * B (16x8, col) + D, fp32 accumulate
//
// Fragment layout (PTX ISA "mma.m16n8k16"), with g = lane / 4 and t = lane % 4:
//   A: a[0] = A[g][2t..2t+1], a[1] = A[g+8][2t..2t+1], a[2] = A[g][2t+8..2t+9], a[3] = A[g+8][2t+8..2t+9]
//   B: b0 = B[2t..2t+1][g], b1 = B[2t+8..2t+9][g]
//   C: c[0..1] = C[g][2t..2t+1], c[2..3] = C[g+8][2t..2t+1]
// The C layout of two adjacent n8 tiles equals the A layout of one k16 slice, which is how an S accumulator
// becomes the P operand of the next product without leaving registers (see `acc_to_a`).
// ---------------------------------------------------------------------------------------------------------
template <bool IS_BF16>
__device__ __forceinline__ void mma16816(float (&c)[4], const u32 (&a)[4], u32 b0, u32 b1) {
  if constexpr (IS_BF16) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

// The A operand of a k16 slice from the accumulators of two adjacent n8 tiles (c_lo: columns 0-7,
// c_hi: columns 8-15), rounded to 16 bits.
template <bool IS_BF16>
__device__ __forceinline__ void acc_to_a(u32 (&a)[4], const float (&c_lo)[4], const float (&c_hi)[4]) {
  a[0] = pack2<IS_BF16>(c_lo[0], c_lo[1]);
  a[1] = pack2<IS_BF16>(c_lo[2], c_lo[3]);
  a[2] = pack2<IS_BF16>(c_hi[0], c_hi[1]);
  a[3] = pack2<IS_BF16>(c_hi[2], c_hi[3]);
}

__device__ __forceinline__ void zero_acc(float (&c)[4]) { c[0] = c[1] = c[2] = c[3] = 0.0f; }

// ---------------------------------------------------------------------------------------------------------
// ldmatrix fragment loaders. `x4` loads four 8x8 matrices; lane L supplies the address of row L % 8 of
// matrix L / 8, and register j receives, per lane, row lane/4, columns 2*(lane%4)..+1 of matrix j
// (with .trans: column lane/4, rows 2*(lane%4)..+1, i.e. the transposed matrix).
// All addresses are shared-state-space byte addresses; `ld` is the tile's row stride in elements.
// ---------------------------------------------------------------------------------------------------------
// Pins registers for the probes' traced and ablated builds: an empty asm that reads and writes them, so that a
// timestamp after it waits for the values (or ptxas keeps a computation whose result is otherwise unused).
__device__ __forceinline__ void pin(float& x) { asm volatile("" : "+f"(x)::"memory"); }
__device__ __forceinline__ void pin(u32& x) { asm volatile("" : "+r"(x)::"memory"); }
__device__ __forceinline__ void pin(float2& x) { asm volatile("" : "+f"(x.x), "+f"(x.y)::"memory"); }
template <typename T, int N>
__device__ __forceinline__ void pin(T (&a)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) pin(a[i]);
}

__device__ __forceinline__ u32 smem_addr(const void* p) { return static_cast<u32>(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void ldmatrix_x4(u32 (&r)[4], u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

__device__ __forceinline__ void ldmatrix_x4_trans(u32 (&r)[4], u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

// A fragment (rows m0..m0+15, k0..k0+15) of a tile stored [m][k]. Matrices: (m0, k0), (m0+8, k0),
// (m0, k0+8), (m0+8, k0+8) -> a[0..3].
__device__ __forceinline__ void load_a(u32 (&a)[4], u32 base, int ld, int m0, int k0, int lane) {
  const int row = m0 + (lane & 15);
  const int col = k0 + (lane >> 4) * 8;
  ldmatrix_x4(a, base + (row * ld + col) * 2);
}

// A fragment of A = T^T where the tile T is stored [k][m] (used for dQ = dS K with dS^T in shared memory).
// Matrices (rows of T = k): (k0, m0), (k0, m0+8), (k0+8, m0), (k0+8, m0+8), each transposed.
__device__ __forceinline__ void load_a_trans(u32 (&a)[4], u32 base, int ld, int m0, int k0, int lane) {
  const int mat = lane >> 3;
  const int row = k0 + (lane & 7) + (mat >> 1) * 8;
  const int col = m0 + (mat & 1) * 8;
  ldmatrix_x4_trans(a, base + (row * ld + col) * 2);
}

// B fragments of two adjacent n8 tiles (n0..n0+15) for k0..k0+15, from a tile stored [n][k] (e.g. K for
// S = Q K^T). b[0], b[1]: tile n0; b[2], b[3]: tile n0+8.
__device__ __forceinline__ void load_b(u32 (&b)[4], u32 base, int ld, int n0, int k0, int lane) {
  const int row = n0 + (lane & 7) + (lane >> 4) * 8;
  const int col = k0 + ((lane >> 3) & 1) * 8;
  ldmatrix_x4(b, base + (row * ld + col) * 2);
}

// Same fragments from a tile stored [k][n] (e.g. V for O = P V), through ldmatrix.trans.
__device__ __forceinline__ void load_b_trans(u32 (&b)[4], u32 base, int ld, int n0, int k0, int lane) {
  const int mat = lane >> 3;
  const int row = k0 + (lane & 7) + (mat & 1) * 8;
  const int col = n0 + (mat >> 1) * 8;
  ldmatrix_x4_trans(b, base + (row * ld + col) * 2);
}

// ---------------------------------------------------------------------------------------------------------
// cp.async (global -> shared, 16 bytes per thread, bypassing L1 with .cg)
// ---------------------------------------------------------------------------------------------------------

// With `valid` false the source size is 0 and the 16 destination bytes are zero-filled: rows past the end
// of the sequence become zeros, which the masks then ignore (and which keep 0 * garbage = NaN out of P V).
__device__ __forceinline__ void cp_async_16(u32 dst, const void* src, bool valid) {
  const int src_bytes = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(src_bytes));
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;"); }

template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N));
}

// Copy the tile rows [row0, row0 + ROWS) x columns [col0, col0 + COLS) of a row-major global matrix (row
// stride `g_ld` elements, `n_rows` rows, `n_cols` columns; g_ld, col0 and n_cols multiples of 8) into a shared
// tile of row stride COLS + SMEM_PAD. All THREADS threads take part; each moves 16 bytes per step, and a
// thread keeps the same column in every step, so one pointer plus immediate offsets addresses all its chunks.
// Chunks outside the matrix are zero-filled; their source address is clamped into the matrix (nothing is
// read from it, but it must be a legal address).
template <int ROWS, int COLS, int THREADS>
__device__ __forceinline__ void load_tile_async(u16* smem, const u16* gmem, long long g_ld, int row0, int n_rows,
                                                int col0, int n_cols, int tid) {
  constexpr int CHUNKS_PER_ROW = COLS / 8;
  constexpr int ROWS_PER_STEP = THREADS / CHUNKS_PER_ROW;
  static_assert(THREADS % CHUNKS_PER_ROW == 0 && ROWS % ROWS_PER_STEP == 0, "tile must split evenly");
  const int r0 = tid / CHUNKS_PER_ROW;
  const int col = (tid % CHUNKS_PER_ROW) * 8;
  const bool col_valid = col0 + col < n_cols;
  const int gcol = col_valid ? col0 + col : 0;
  const u32 dst = smem_addr(smem) + (r0 * (COLS + SMEM_PAD) + col) * 2;
#pragma unroll
  for (int i = 0; i < ROWS / ROWS_PER_STEP; ++i) {
    const int grow = row0 + r0 + i * ROWS_PER_STEP;
    const bool valid = col_valid && grow < n_rows;
    const u16* src = gmem + min(grow, n_rows - 1) * g_ld + gcol;
    cp_async_16(dst + i * ROWS_PER_STEP * (COLS + SMEM_PAD) * 2, src, valid);
  }
}

// Same for a tile whose columns are a whole row of length COLS (Q, K, V, dO tiles).
template <int ROWS, int COLS, int THREADS>
__device__ __forceinline__ void load_rows_async(u16* smem, const u16* gmem, int row0, int n_rows, int tid) {
  load_tile_async<ROWS, COLS, THREADS>(smem, gmem, COLS, row0, n_rows, 0, COLS, tid);
}

// ---------------------------------------------------------------------------------------------------------
// Warp-level products over shared-memory tiles. Each warp owns 16 * MG rows of the output; fragments are
// fully unrolled so the accumulators stay in registers.
// ---------------------------------------------------------------------------------------------------------

// C[MG][N/8][4] = A B^T with A rows a_row0.. (16 * MG rows, K columns) of a tile stored [m][k] and B all N
// rows of a tile stored [n][k]. Used for S = Q K^T (and, in the backward, S^T = K Q^T, dP^T = V dO^T).
// A_AHEAD: load the next k step's A fragments during the current one (4 * MG more live registers; the backward at
// d = 128 has no room for them).
template <int MG, int N, int K, bool IS_BF16, bool A_AHEAD = true>
__device__ __forceinline__ void gemm_abt_ss(float (&c)[MG][N / 8][4], u32 a_base, int lda, int a_row0,
                                            u32 b_base, int ldb, int lane) {
#pragma unroll
  for (int mg = 0; mg < MG; ++mg) {
#pragma unroll
    for (int nt = 0; nt < N / 8; ++nt) zero_acc(c[mg][nt]);
  }
  // Software-pipelined as FA2's gemm (CUTLASS): the fragments of the next n16 tile, and at the last n16 tile of a
  // k step those of the next k step, are loaded before the current mmas are issued, so no ldmatrix latency
  // (~29 cycles) sits between two mmas of a warp. Without it one warp per scheduler issued S = Q K^T at ~1/3 of
  // the tensor pipe's rate (validation/h200/v2_phases_summary_h200.csv, 2026-12-01). The k loop stays rolled: its
  // steps touch registers only through compile-time n indices, and a rolled loop keeps ptxas from hoisting every
  // step's ldmatrix at once (which spills at d = 128). The last step's look-ahead re-reads its own fragments
  // (k_next is clamped) instead of branching.
  u32 a[MG][4], b[4];
  if constexpr (A_AHEAD) {
#pragma unroll
    for (int mg = 0; mg < MG; ++mg) load_a(a[mg], a_base, lda, a_row0 + mg * 16, 0, lane);
  }
  load_b(b, b_base, ldb, 0, 0, lane);
#pragma unroll 1
  for (int k0 = 0; k0 < K; k0 += 16) {
    const int k_next = min(k0 + 16, K - 16);
    u32 a_next[MG][4];
    if constexpr (!A_AHEAD) {
#pragma unroll
      for (int mg = 0; mg < MG; ++mg) load_a(a[mg], a_base, lda, a_row0 + mg * 16, k0, lane);
    }
#pragma unroll
    for (int n0 = 0; n0 < N; n0 += 16) {
      u32 b_next[4];
      if (n0 + 16 < N) {
        load_b(b_next, b_base, ldb, n0 + 16, k0, lane);
      } else {
        if constexpr (A_AHEAD) {
#pragma unroll
          for (int mg = 0; mg < MG; ++mg) load_a(a_next[mg], a_base, lda, a_row0 + mg * 16, k_next, lane);
        }
        load_b(b_next, b_base, ldb, 0, k_next, lane);
      }
#pragma unroll
      for (int mg = 0; mg < MG; ++mg) {
        mma16816<IS_BF16>(c[mg][n0 / 8], a[mg], b[0], b[1]);
        mma16816<IS_BF16>(c[mg][n0 / 8 + 1], a[mg], b[2], b[3]);
      }
#pragma unroll
      for (int e = 0; e < 4; ++e) b[e] = b_next[e];
    }
    if constexpr (A_AHEAD) {
#pragma unroll
      for (int mg = 0; mg < MG; ++mg) {
#pragma unroll
        for (int e = 0; e < 4; ++e) a[mg][e] = a_next[mg][e];
      }
    }
  }
}

// C[MG][N/8][4] += A B with A already in registers as packed 16-bit A fragments a[MG][K/16][4] (see
// `acc_to_a`: packing right after the softmax halves the registers P occupies during this product) and
// B all K rows of a tile stored [k][n] with row stride N + SMEM_PAD. Used for O += P V (and dV += P^T dO,
// dK += dS^T Q in the backward). With AHEAD, software-pipelined as gemm_abt_ss: the B fragment of the next n16 tile
// (or of the next k step's first) is loaded before the current mmas are issued, so that no ldmatrix latency sits
// between two mmas of a warp, as FA2's gemm_rs does. The v2 forward takes it: with it and the shared K/V fragments
// (fwd.cu) the warps' samples stalled on the short scoreboard at d = 128 fell from 24% to 9% (PyTorch's FA2: 7.5%;
// validation/h200/torch_fa2_mix_h200.csv); its own share of the time gained is within the noise
// (validation/h200/v2_shared_fragments_h200.csv: shared_plain against shared_ahead). Without it each fragment is
// loaded just before its mmas.
template <int MG, int K, int N, bool IS_BF16, bool AHEAD = false>
__device__ __forceinline__ void gemm_ab_rs(float (&c)[MG][N / 8][4], const u32 (&a)[MG][K / 16][4],
                                           u32 b_base, int lane) {
  constexpr int LDB = N + SMEM_PAD;
  u32 b[4];
  if constexpr (AHEAD) load_b_trans(b, b_base, LDB, 0, 0, lane);
#pragma unroll
  for (int k0 = 0; k0 < K; k0 += 16) {
#pragma unroll
    for (int n0 = 0; n0 < N; n0 += 16) {
      const bool last = k0 + 16 == K && n0 + 16 == N;
      u32 b_next[4];
      if constexpr (AHEAD) {
        if (!last) load_b_trans(b_next, b_base, LDB, n0 + 16 < N ? n0 + 16 : 0, n0 + 16 < N ? k0 : k0 + 16, lane);
      } else {
        load_b_trans(b, b_base, LDB, n0, k0, lane);
      }
#pragma unroll
      for (int mg = 0; mg < MG; ++mg) {
        mma16816<IS_BF16>(c[mg][n0 / 8], a[mg][k0 / 16], b[0], b[1]);
        mma16816<IS_BF16>(c[mg][n0 / 8 + 1], a[mg][k0 / 16], b[2], b[3]);
      }
      if constexpr (AHEAD) {
        if (!last) {
#pragma unroll
          for (int e = 0; e < 4; ++e) b[e] = b_next[e];
        }
      }
    }
  }
}

// Max / sum over the 4 lanes of a quad (the lanes that share one accumulator row).
__device__ __forceinline__ float quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}

__device__ __forceinline__ float quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}
