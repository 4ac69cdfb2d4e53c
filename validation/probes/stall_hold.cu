// Device probe kernels (stall_hold.py): does a warp's compiler stall count hold its scheduler, or do other warps
// issue in it? (docs/results/sass_toy_35/: a toy SM fits the softmax pair's offset-independent period only if it
// holds.) One CTA of 8 warps per SM: warp w sits on scheduler w % 4, so warps w and w + 4 share one. Warps 0-3 (A)
// and 4-7 (B) each run one kind of loop, or none:
//   chain        32 dependent FFMAs per iteration (each reads the last: ptxas gives each stall count 4, yield bit
//                clear); 4 cycles per FFMA alone;
//   independent  4 chains of 8 FFMAs interleaved (stall count 1);
//   mufu_fadd    a chain alternating MUFU.EX2 and FADD (the softmax's exp -> row sum dependence): cycles per pair;
//   mufu_mufu    a chain of MUFU.EX2 (the measured 23 cycles per step, for reference in the same build).
// MODE (A, B): 0 (chain, -), 1 (chain, chain), 2 (chain, independent), 3 (independent, -), 4 (independent,
// independent), 5 (mufu_fadd, -), 6 (mufu_mufu, -). Hold: mode 1 takes 8 cycles per FFMA of each warp, no hold 4;
// mode 2's independent warp issues in the chain's stalls, or not. Lane 0 of each warp records its loop's cycles in
// cycles[blockIdx.x * 8 + warp] (0: the warp ran nothing).

constexpr int STALL_WARPS = 8;

__device__ __forceinline__ float ex2_neg(float x) {
  float y;
  asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(-x));
  return y;
}

// kind: 0 none, 1 chain, 2 independent, 3 mufu_fadd, 4 mufu_mufu. Returns a value that depends on every step.
__device__ __forceinline__ float stall_loop(int kind, float x, float a, float b, int iters) {
  if (kind == 1) {
    for (int i = 0; i < iters; ++i) {
#pragma unroll
      for (int k = 0; k < 32; ++k) x = fmaf(x, a, b);
    }
  } else if (kind == 2) {
    float y = x + 1.0f, z = x + 2.0f, w = x + 3.0f;
    for (int i = 0; i < iters; ++i) {
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        x = fmaf(x, a, b);
        y = fmaf(y, a, b);
        z = fmaf(z, a, b);
        w = fmaf(w, a, b);
      }
    }
    x += y + z + w;
  } else if (kind == 3) {
    for (int i = 0; i < iters; ++i) {
#pragma unroll
      for (int k = 0; k < 32; ++k) x = ex2_neg(x) + b;  // x in (0, 1) -> 2^-x in (0.5, 1), + b
    }
  } else if (kind == 4) {
    for (int i = 0; i < iters; ++i) {
#pragma unroll
      for (int k = 0; k < 32; ++k) x = ex2_neg(x);
    }
  }
  return x;
}

template <int MODE>
__global__ void __launch_bounds__(256, 1) stall_hold(const float* __restrict__ seed, int iters,
                                                     long long* __restrict__ cycles, float* __restrict__ sink) {
  constexpr int KIND_A = MODE == 0 || MODE == 1 || MODE == 2 ? 1 : MODE == 3 || MODE == 4 ? 2 : MODE == 5 ? 3 : 4;
  constexpr int KIND_B = MODE == 1 ? 1 : MODE == 2 || MODE == 4 ? 2 : 0;
  const int warp = threadIdx.x / 32;
  const int kind = warp < 4 ? KIND_A : KIND_B;
  const float a = seed[0], b = seed[1];
  float x = seed[2 + threadIdx.x % 32];
  __syncthreads();
  const long long t0 = clock64();
  x = stall_loop(kind, x, a, b, iters);
  const long long t1 = clock64();
  if (threadIdx.x % 32 == 0) cycles[blockIdx.x * STALL_WARPS + warp] = kind ? t1 - t0 : 0;
  if (x == 1234.5f) sink[threadIdx.x] = x;
}
