// Device probe kernels: the HBM's sustained rate by read/write mix (hbm_mix.py).
// hbm_mix<R, W>: a grid-stride stream over n4 float4 elements of R source arrays and W destination arrays (each
// array its own slice of one buffer), every thread with UNROLL elements of each array in flight per step: R 16-byte
// loads, then W 16-byte stores of values that depend on the loads (so none can be dropped).

template <int R, int W, int UNROLL>
__device__ void mix_stream(const float4* __restrict__ src, float4* __restrict__ dst, unsigned long long n4) {
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4;
       i += UNROLL * stride) {
    float4 x[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const float v = static_cast<float>(i + u * stride);
      x[u] = make_float4(v, v, v, v);
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const unsigned long long k = i + u * stride;
        if (k < n4) {
          const float4 y = src[r * n4 + k];
          x[u].x += y.x;
          x[u].y += y.y;
          x[u].z += y.z;
          x[u].w += y.w;
        }
      }
    }
#pragma unroll
    for (int w = 0; w < W; ++w) {
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const unsigned long long k = i + u * stride;
        if (k < n4) dst[w * n4 + k] = x[u];
      }
    }
    if (W == 0) {  // keeps the loads of a read-only stream; never true for the probe's inputs (all ones)
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        if (x[u].x == -1.0f) dst[0] = x[u];
      }
    }
  }
}

#define MIX(R, W)                                                                                        \
  extern "C" __global__ void hbm_mix_##R##_##W(const float4* src, float4* dst, unsigned long long n4) { \
    mix_stream<R, W, 4>(src, dst, n4);                                                                   \
  }

MIX(1, 0)
MIX(2, 0)
MIX(4, 1)
MIX(3, 1)
MIX(2, 1)
MIX(3, 2)
MIX(1, 1)
MIX(2, 2)
MIX(2, 3)
MIX(1, 2)
MIX(1, 3)
MIX(0, 1)
MIX(0, 2)
MIX(9, 1)
MIX(19, 1)
MIX(1, 4)
MIX(1, 7)
MIX(1, 9)
MIX(1, 19)
