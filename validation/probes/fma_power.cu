// Does the FP32 FMA rate per second depend on the values it computes? (validation/probes/fma_power.py)
//
// calibrate's fma_rate runs x -> 0.99951171875 x + b: a contraction that reaches its fixed point (b / (1 - a))
// within a few thousand steps, after which every FFMA computes the same numbers again and almost no bit of the
// datapath toggles. Attention's FFMAs (the softmax's scale-subtract, the rescale of O) see new values every time.
// MODE 0 is fma_rate's recurrence; MODE 1 is x -> c - x * x with c = 1.9, a chaotic map on (-1.97, 1.97): one FFMA
// per step (x * -x + c) whose values never settle, so multiplier and adder toggle as with live data. Same shape as
// fma_rate: CHAINS independent chains per thread, STEPS-step unrolled body, 8 CTAs of 256 threads per SM.
#include "../../cupy_kernels/calibrate/bench.cuh"

template <int MODE, int CHAINS, int STEPS>
__global__ void __launch_bounds__(256, 8)
    fma_power(const float* __restrict__ seed, int iters, u32 key, u32* sink, u64* cycles) {
  const u64 start = sm_cycles();
  // MODE 1's c is a register as MODE 0's b is (without fast-math, 0 * seed may not fold away: NaN and inf).
  const float b = MODE == 0 ? seed[256] : 1.9f + 0.0f * seed[256];
  float x[CHAINS];
  seed_chains(x, seed);
  run_chains<STEPS>(x, iters, [b](float v) { return MODE == 0 ? fmaf(v, 0.99951171875f, b) : fmaf(v, -v, b); });
  float acc = 0.0f;
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) acc += x[c];
  keep(__float_as_uint(acc), key, sink);
  record_cycles(start, cycles);
}
