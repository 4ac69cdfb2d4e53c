// Device probe kernels: when does L2 write a store's bytes to DRAM? (l2_writeback.py)
// Grid-stride streams over a buffer: plain 16-byte stores (fill), 16-byte loads summed (sum), fp32 reductions in L2
// whose result is unused (RED), and FA2's Delta pattern (two inputs read, an fp32 buffer of their total size zeroed).

extern "C" __global__ void l2wb_fill(float4* buf, unsigned long long n4, float value) {
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
    buf[i] = make_float4(value, value, value, value);
  }
}

extern "C" __global__ void l2wb_sum(const float4* buf, unsigned long long n4, float* out) {
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  float s = 0.0f;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
    const float4 x = buf[i];
    s += (x.x + x.y) + (x.z + x.w);
  }
  for (int offset = 16; offset > 0; offset >>= 1) s += __shfl_xor_sync(0xffffffffu, s, offset);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}

extern "C" __global__ void l2wb_red(float* buf, unsigned long long n, int reps) {
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (int r = 0; r < reps; ++r) {
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
      atomicAdd(buf + i, 1.0f);  // result unused: RED
    }
  }
}

// c (2 * n4 float4) zeroed while a and b (n4 float4 each) are read: FA2's Delta kernel's bytes.
extern "C" __global__ void l2wb_delta(const float4* a, const float4* b, float4* c, unsigned long long n4, float* out) {
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  float s = 0.0f;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
    const float4 x = a[i];
    const float4 y = b[i];
    s += (x.x * y.x + x.y * y.y) + (x.z * y.z + x.w * y.w);
    c[2 * i] = zero;
    c[2 * i + 1] = zero;
  }
  if (s == 12345.0f) *out = s;  // keeps the loads; never true for the probe's inputs
}
