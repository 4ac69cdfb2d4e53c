// Device probe kernels: the SM's throughput of F2FP (cvt.rn.bf16x2.f32, the pack of two fp32 scores into bf16x2
// that FlashAttention's softmax ends with), beside FMNMX and FFMA as controls (f2fp_rate.py).
// Every thread runs CHAINS independent dependency chains of ITERS steps of one instruction, so with enough warps
// per scheduler the pipe, not the latency, sets the pace. Each CTA records its SM and its first and last clock64.

#define CHAINS 8

__device__ __forceinline__ float step_f2fp(float a, float b) {
  unsigned int d;
  asm volatile("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(a), "f"(b));
  return __uint_as_float(d & 0x3f7f3f7fu);  // a finite value again, whatever the inputs (an ALU op beside it)
}

__device__ __forceinline__ float step_f2fp_plain(float a, float b) {
  unsigned int d;
  asm volatile("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(a), "f"(b));
  return __uint_as_float(d);
}

__device__ __forceinline__ float step_fmnmx(float a, float b) {
  float d;
  asm volatile("max.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
  return d;
}

__device__ __forceinline__ float step_ffma(float a, float b) {
  float d;
  asm volatile("fma.rn.f32 %0, %1, %2, %1;" : "=f"(d) : "f"(a), "f"(b));
  return d;
}

#define RATE_KERNEL(NAME, STEP)                                                                                   \
  extern "C" __global__ void NAME(const float* seed, int iters, float* sink, unsigned long long* stamps) {       \
    float x[CHAINS];                                                                                            \
    const float b = seed[threadIdx.x % 32];                                                                     \
    _Pragma("unroll") for (int c = 0; c < CHAINS; ++c) x[c] = seed[(threadIdx.x + c) % 32];                     \
    __syncthreads();                                                                                            \
    const unsigned long long start = clock64();                                                                \
    for (int i = 0; i < iters; ++i) {                                                                           \
      _Pragma("unroll") for (int c = 0; c < CHAINS; ++c) x[c] = STEP(x[c], b);                                  \
    }                                                                                                           \
    __syncthreads();                                                                                            \
    const unsigned long long end = clock64();                                                                  \
    float s = 0.0f;                                                                                             \
    _Pragma("unroll") for (int c = 0; c < CHAINS; ++c) s += x[c];                                               \
    if (s == 12345.0f) sink[0] = s;                                                                             \
    if (threadIdx.x == 0) {                                                                                     \
      unsigned int sm;                                                                                          \
      asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));                                                           \
      stamps[3 * blockIdx.x] = sm;                                                                              \
      stamps[3 * blockIdx.x + 1] = start;                                                                       \
      stamps[3 * blockIdx.x + 2] = end;                                                                         \
    }                                                                                                           \
  }

RATE_KERNEL(rate_f2fp_masked, step_f2fp)
RATE_KERNEL(rate_f2fp, step_f2fp_plain)
RATE_KERNEL(rate_fmnmx, step_fmnmx)
RATE_KERNEL(rate_ffma, step_ffma)
