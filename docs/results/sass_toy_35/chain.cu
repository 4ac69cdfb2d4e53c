// Two FFMA loops for `sass_loops.py`: what stall count and yield bit the compiler gives a dependent FFMA chain (each
// step reads the last) and independent FFMAs (four chains interleaved). Not run on a device.
extern "C" __global__ void ffma_chain(float* out, int n, float a, float b) {
  float x = threadIdx.x;
  for (int i = 0; i < n; ++i) {
#pragma unroll
    for (int k = 0; k < 32; ++k) x = x * a + b;
  }
  out[threadIdx.x] = x;
}

extern "C" __global__ void ffma_independent(float* out, int n, float a, float b) {
  float x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3;
  for (int i = 0; i < n; ++i) {
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      x0 = x0 * a + b;
      x1 = x1 * a + b;
      x2 = x2 * a + b;
      x3 = x3 * a + b;
    }
  }
  out[threadIdx.x] = x0 + x1 + x2 + x3;
}
