// The two products of our FA2 forward kernel alone, in a loop: what rate they reach from one or two warps per
// scheduler, without the softmax between them (validation/probes/v2_gemm_rate.py).
//
// s_gemm: S = Q K^T exactly as fa2_fwd computes it (gemm_abt_ss over a Q tile and a K tile in shared memory).
// pv_gemm: O += P V exactly as fa2_fwd computes it (gemm_ab_rs, P in registers, V in shared memory).
// mma_distinct: CHAINS accumulators, each with its own A and B registers (no operand re-use between consecutive
// mmas), registers only: the pipe rate when the operands change on every instruction.
// Shared memory holds small random bf16 values; each warp folds its results into `keep` so nothing is dead.
#include "../../cupy_kernels/common.cuh"

__device__ __forceinline__ unsigned long long cycles_now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
  return t;
}

__device__ __forceinline__ void fill_smem(u16* s, int count) {
  for (int i = threadIdx.x; i < count; i += blockDim.x) s[i] = static_cast<u16>(0x3c00 + (i * 7919) % 512);
}

// The start time lives in shared memory, not in a register held across the timed loop.
__device__ unsigned long long* start_slot() {
  __shared__ unsigned long long start;
  return &start;
}

__device__ __forceinline__ void begin() {
  __syncthreads();
  if (threadIdx.x == 0) *start_slot() = cycles_now();
}

__device__ __forceinline__ void finish(float acc, u32* sink, unsigned long long* cycles) {
  if (__float_as_uint(acc) == 0x7fc00001u) *sink = 1u;
  __syncthreads();
  if (threadIdx.x == 0) cycles[blockIdx.x] = cycles_now() - *start_slot();
}

template <int D, int BLOCK_N, int MGS>
__global__ void __launch_bounds__(128) s_gemm(int iters, u32* sink, unsigned long long* cycles) {
  constexpr int LD = D + SMEM_PAD;
  extern __shared__ __align__(16) u16 smem[];
  u16* q_s = smem;                  // [16 * MGS * 4][LD]
  u16* k_s = q_s + 64 * MGS * LD;   // [BLOCK_N][LD]
  fill_smem(smem, (64 * MGS + BLOCK_N) * LD);
  __syncthreads();
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  begin();
  float acc = 0.0f;
#pragma unroll 1
  for (int it = 0; it < iters; ++it) {
    float s[MGS][BLOCK_N / 8][4];
    gemm_abt_ss<MGS, BLOCK_N, D, true>(s, smem_addr(q_s), LD, warp * 16 * MGS, smem_addr(k_s), LD, lane);
#pragma unroll
    for (int mg = 0; mg < MGS; ++mg) {
#pragma unroll
      for (int nt = 0; nt < BLOCK_N / 8; ++nt) acc += s[mg][nt][0];
    }
  }
  finish(acc, sink, cycles);
}

template <int D, int BLOCK_N, int MGS>
__global__ void __launch_bounds__(128) pv_gemm(int iters, u32* sink, unsigned long long* cycles) {
  extern __shared__ __align__(16) u16 smem[];
  fill_smem(smem, BLOCK_N * (D + SMEM_PAD));
  __syncthreads();
  const int lane = threadIdx.x % 32;
  u32 p[MGS][BLOCK_N / 16][4];
#pragma unroll
  for (int mg = 0; mg < MGS; ++mg) {
#pragma unroll
    for (int kt = 0; kt < BLOCK_N / 16; ++kt) {
#pragma unroll
      for (int e = 0; e < 4; ++e) p[mg][kt][e] = 0x3c003c00u + lane + kt + e;
    }
  }
  float o[MGS][D / 8][4];
#pragma unroll
  for (int mg = 0; mg < MGS; ++mg) {
#pragma unroll
    for (int dt = 0; dt < D / 8; ++dt) zero_acc(o[mg][dt]);
  }
  begin();
  for (int it = 0; it < iters; ++it) gemm_ab_rs<MGS, BLOCK_N, D, true>(o, p, smem_addr(smem), lane);
  float acc = 0.0f;
#pragma unroll
  for (int mg = 0; mg < MGS; ++mg) {
#pragma unroll
    for (int dt = 0; dt < D / 8; ++dt) acc += o[mg][dt][0];
  }
  finish(acc, sink, cycles);
}

template <int CHAINS>
__global__ void __launch_bounds__(128) mma_distinct(int iters, u32* sink, unsigned long long* cycles) {
  const int lane = threadIdx.x % 32;
  u32 a[CHAINS][4], b[CHAINS][2];
  float c[CHAINS][4];
#pragma unroll
  for (int i = 0; i < CHAINS; ++i) {
#pragma unroll
    for (int e = 0; e < 4; ++e) a[i][e] = 0x3c003c00u + lane * 3 + i * 5 + e;
    b[i][0] = 0x3c003c01u + lane + i;
    b[i][1] = 0x3c013c00u + lane + i;
    zero_acc(c[i]);
  }
  begin();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int i = 0; i < CHAINS; ++i) mma16816<true>(c[i], a[i], b[i][0], b[i][1]);
  }
  float acc = 0.0f;
#pragma unroll
  for (int i = 0; i < CHAINS; ++i) acc += c[i][0];
  finish(acc, sink, cycles);
}
