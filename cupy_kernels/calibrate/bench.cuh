// Helpers shared by the calibration microbenchmarks: SM cycle counts per CTA and a sink that keeps results alive.
//
// Every benchmark kernel launches exactly one wave (the runner sizes the grid to the SM count times the CTAs
// that fit on one SM), so each CTA runs for the whole kernel and its cycle count, divided by the kernel's event
// time, is the SM clock the kernel actually ran at: a cross-check of the clock nvidia-smi samples.
#pragma once

typedef unsigned int u32;
typedef unsigned long long u64;

__device__ __forceinline__ u64 sm_cycles() {
  u64 t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
  return t;
}

// Thread 0 of each CTA writes the cycles between `start` and the moment every thread of the CTA is done.
__device__ __forceinline__ void record_cycles(u64 start, u64* cycles) {
  __syncthreads();
  if (threadIdx.x == 0) cycles[blockIdx.x] = sm_cycles() - start;
}

// Keeps `value` (and so every load or instruction feeding it) from being removed as dead code, without memory
// traffic: the store runs only when the value equals `key`, which the compiler cannot know but which the host
// picks so that it practically never matches (a hit costs one 4-byte store and changes no timing).
__device__ __forceinline__ void keep(u32 value, u32 key, u32* sink) {
  if (value == key) *sink = value;
}

// The chain benchmarks' body: each of the thread's CHAINS independent chains starts from a value of `seed`, then
// `iters` loop iterations apply `step` STEPS times (unrolled) to every chain, so a step's instruction is all the loop
// issues but for its counter.
template <int CHAINS, typename T, typename Seed>
__device__ __forceinline__ void seed_chains(T (&x)[CHAINS], const Seed* __restrict__ seed) {
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) x[c] = seed[(threadIdx.x + c) & 255];
}

template <int STEPS, int CHAINS, typename T, typename Step>
__device__ __forceinline__ void run_chains(T (&x)[CHAINS], int iters, Step step) {
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int s = 0; s < STEPS; ++s) {
#pragma unroll
      for (int c = 0; c < CHAINS; ++c) x[c] = step(x[c]);
    }
  }
}
