// Compute microbenchmarks of `simgpu calibrate`: MUFU ex2, FP32 FMA, mma.sync m16n8k16 bf16, and the two kernels
// of the launch-gap measurement. Each rate kernel is one persistent wave (see bench.cuh) of 256-thread CTAs.
//
// Why the rates are not latency- or issue-bound:
// - Every thread runs CHAINS independent dependency chains, and the SM holds many warps, so the pipe always
//   has independent work: CHAINS x warps per scheduler far exceeds (pipe latency x issue interval).
// - A scheduler issues one warp instruction per cycle. FP32 FMA at 128 lanes/SM is exactly one FFMA per
//   scheduler per cycle, so any other instruction in the loop (counter, compare, branch) takes an FMA slot: an
//   8-FFMA loop body with 2 overhead instructions caps at 80% (the 103/clk/SM of an earlier, shorter loop). The
//   bodies here are CHAINS x STEPS = 8 x 64 = 512 instructions long (the runner's choice), leaving the loop
//   overhead under 1% (126.7 FFMA/clk/SM measured on the H200).
#include "bench.cuh"

// x -> 2^(-x): a contraction on (0, 1) whose values stay there forever (no overflow, no denormals, never zero),
// one MUFU.EX2 with a negated operand per step. The .ftz form is a single MUFU instruction; without .ftz the
// compiler wraps it in denormal-scaling FMULs on the FMA pipe (fast-math exp2f, which attention kernels use,
// is the .ftz form).
__device__ __forceinline__ float ex2_neg(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(-x));
  return y;
}

template <int CHAINS, int STEPS>
__global__ void __launch_bounds__(256, 8)
    ex2_rate(const float* __restrict__ seed, int iters, u32 key, u32* sink, u64* cycles) {
  const u64 start = sm_cycles();
  float x[CHAINS];
  seed_chains(x, seed);
  run_chains<STEPS>(x, iters, [](float v) { return ex2_neg(v); });
  float acc = 0.0f;
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) acc += x[c];
  keep(__float_as_uint(acc), key, sink);
  record_cycles(start, cycles);
}

// x -> a x + b with |a| < 1: a contraction, so values stay finite. `a` is an immediate and `b` one register
// shared by all chains, so each FFMA reads only two registers (no register-bank conflicts to stall issue).
// Without fast-math the compiler may not reassociate or fold the recurrence: every step is one FFMA.
template <int CHAINS, int STEPS>
__global__ void __launch_bounds__(256, 8)
    fma_rate(const float* __restrict__ seed, int iters, u32 key, u32* sink, u64* cycles) {
  const u64 start = sm_cycles();
  const float b = seed[256];
  float x[CHAINS];
  seed_chains(x, seed);
  run_chains<STEPS>(x, iters, [b](float v) { return fmaf(v, 0.99951171875f, b); });
  float acc = 0.0f;
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) acc += x[c];
  keep(__float_as_uint(acc), key, sink);
  record_cycles(start, cycles);
}

// D = A B + D with A 16x16, B 16x8 bf16 fragments (random bits from `seed`) and CHAINS independent fp32
// accumulator tiles per warp and 8 warps per scheduler (4 CTAs of 8 warps per SM): 8 x CHAINS independent mmas
// per scheduler in flight, operands in registers, no memory.
// The accumulators feed `keep`, so no mma is dead.
template <int CHAINS, int STEPS>
__global__ void __launch_bounds__(256, 4)
    mma_sync_rate(const u32* __restrict__ seed, int iters, u32 key, u32* sink, u64* cycles) {
  const u64 start = sm_cycles();
  const int lane = threadIdx.x & 31;
  const u32 a0 = seed[lane], a1 = seed[lane + 32], a2 = seed[lane + 64], a3 = seed[lane + 96];
  const u32 b0 = seed[lane + 128], b1 = seed[lane + 160];
  float d[CHAINS][4];
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) {
#pragma unroll
    for (int j = 0; j < 4; ++j) d[c][j] = 0.0f;
  }
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int s = 0; s < STEPS; ++s) {
#pragma unroll
      for (int c = 0; c < CHAINS; ++c) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
            "{%0, %1, %2, %3};"
            : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
            : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
      }
    }
  }
  float acc = 0.0f;
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) acc += d[c][0] + d[c][1] + d[c][2] + d[c][3];
  keep(__float_as_uint(acc), key, sink);
  record_cycles(start, cycles);
}

// The launch-gap measurement: `spin` holds the stream for `ns` nanoseconds while the host enqueues many `empty`
// launches behind it, so the GPU then runs them back to back from a full queue and their event time is the
// device-side cost per launch, free of the host's (Python) launch overhead.
__global__ void empty() {}

__global__ void spin(u64 ns) {
  u64 t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}
