// Device probe kernels (chain_beside.py): which dependency chains does another warp's dense issue slow, and by how
// much? A dependent FFMA chain takes 4.06 cycles a step alone and 5.08 beside a warp of independent FFMAs on its
// scheduler; a dependent SHFL.BFLY chain 24.14 alone, 24.88 beside a warp of exps, 31.88 beside independent FFMAs
// (validation/h200/stall_hold_on_h100/, mufu_queue_on_h100/). Two candidate mechanisms: the chain's instruction
// loses issue cycles to the busy warp (then it would show as not_selected), or a variable-latency result (MUFU, SHFL:
// through the MIO) waits for a register-file write cycle that the busy warp's fixed-latency results take first (then
// short_scoreboard on the instruction that reads it). This probe times every chain kind beside every busy kind.
// One CTA of 8 warps per SM: warp w sits on scheduler w % 4. Warp 0 runs CHAIN for `iters` x 32 dependent steps;
// warp 4 (its scheduler; warp 1, another scheduler, where BUSY is 6) runs BUSY for `busy_iters` iterations, started
// with warp 0 and longer than its chain. Lane 0 of warp 0 writes its chain's cycles to cycles[blockIdx.x]; lane 0 of
// the busy warp its own cycles to busy_cycles[blockIdx.x] (whole loop: its instruction rate alone where CHAIN is 5).
// CHAIN: 0 FFMA (x = x * a + b), 1 MUFU.EX2 (x = 2^-x), 2 SHFL.BFLY, 3 MUFU.EX2 then FADD (x = 2^-x + b),
//        4 FMNMX (x = max(x, r_k) - c, as FMNMX + FADD pairs: the row maximum's compare), 5 none (the busy warp alone);
//        and streams of independent instructions, 32 a step over 16 registers (cycles per step / 32: per instruction):
//        6 exps, 7 FMNMXs, 8 FADDs (does one pipe's stream slow another's on the same scheduler?).
// BUSY:  0 none, 1 16 independent FFMA chains (about one instruction a cycle), 2 2 independent FFMA chains (one
//        every 2 cycles), 3 16 independent FMNMX chains (the ALU: one every 2 cycles), 4 16 independent FADD chains,
//        5 16 independent exp chains (one every 8 cycles), 6 as 1 on another scheduler (control).
// Every instruction of the loops is inline PTX (asm volatile), so the compiler keeps each one; the exp, shuffle and
// clock helpers are mufu_queue.cu's.
#include "mufu_queue.cu"

__device__ __forceinline__ float cb_ffma(float x, float a, float b) {
  float y;
  asm volatile("fma.rn.f32 %0, %1, %2, %3;" : "=f"(y) : "f"(x), "f"(a), "f"(b));
  return y;
}

__device__ __forceinline__ float cb_fadd(float x, float b) {
  float y;
  asm volatile("add.f32 %0, %1, %2;" : "=f"(y) : "f"(x), "f"(b));
  return y;
}

__device__ __forceinline__ float cb_fmax(float x, float b) {
  float y;
  asm volatile("max.f32 %0, %1, %2;" : "=f"(y) : "f"(x), "f"(b));
  return y;
}

template <int CHAIN>
__device__ __forceinline__ float stream_loop(float x, float a, float b, int iters) {
  float r[16];
#pragma unroll
  for (int c = 0; c < 16; ++c) r[c] = x + 0.01f * c;
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 32; ++k) {
      if (CHAIN == 6) r[k & 15] = queue_ex2(-r[k & 15]);
      if (CHAIN == 7) r[k & 15] = cb_fmax(r[k & 15], a * (k & 15));
      if (CHAIN == 8) r[k & 15] = cb_fadd(r[k & 15], b);
    }
  }
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < 16; ++c) sum += r[c];
  return sum;
}

template <int CHAIN>
__device__ __forceinline__ float chain_loop(float x, float a, float b, int iters) {
  if (CHAIN >= 6) return stream_loop<CHAIN>(x, a, b, iters);
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 32; ++k) {
      if (CHAIN == 0) x = cb_ffma(x, a, b);
      if (CHAIN == 1) x = queue_ex2(-x);
      if (CHAIN == 2) x = queue_shfl(x, 1 + (k & 1));
      if (CHAIN == 3) x = cb_fadd(queue_ex2(-x), b);
      if (CHAIN == 4) x = cb_fadd(cb_fmax(x, a), -b);
    }
  }
  return x;
}

template <int BUSY>
__device__ __forceinline__ float busy_loop(const float* seed, float a, float b, int iters) {
  float x[16];
#pragma unroll
  for (int c = 0; c < 16; ++c) x[c] = seed[(threadIdx.x + c) % 64];
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int c = 0; c < 16; ++c) {
      if (BUSY == 1 || BUSY == 6) x[c] = cb_ffma(x[c], a, b);
      if (BUSY == 2) x[c & 1] = cb_ffma(x[c & 1], a, b);
      if (BUSY == 3) x[c] = cb_fmax(x[c], a * c);
      if (BUSY == 4) x[c] = cb_fadd(x[c], b);
      if (BUSY == 5) x[c] = queue_ex2(-x[c]);
    }
  }
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < 16; ++c) sum += x[c];
  return sum;
}

template <int CHAIN, int BUSY>
__global__ void __launch_bounds__(256, 1) chain_beside(const float* __restrict__ seed, int iters, int busy_iters,
                                                       long long* __restrict__ cycles,
                                                       long long* __restrict__ busy_cycles, float* __restrict__ sink) {
  const int warp = threadIdx.x / 32;
  const int busy_warp = BUSY == 6 ? 1 : 4;
  const float a = seed[64], b = seed[65];
  float v = seed[threadIdx.x % 64];
  __syncthreads();
  if (warp == 0 && CHAIN != 5) {
    const long long t0 = queue_clock();
    v = chain_loop<CHAIN>(v, a, b, iters);
    const long long t1 = queue_clock();
    if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  } else if (warp == busy_warp && BUSY != 0) {
    const long long t0 = queue_clock();
    v = busy_loop<BUSY>(seed, a, b, busy_iters);
    const long long t1 = queue_clock();
    if (threadIdx.x % 32 == 0) busy_cycles[blockIdx.x] = t1 - t0;
  }
  if (v == 1234.5f) sink[threadIdx.x] = v;
}
