// The cost of a __syncthreads that a CTA's warps reach together (validation/probes/cta_sync.py): the simulator's
// `latency.cta_sync_cycles`, which the v1 schedule charges at each of FA1's barriers.
//
// Every warp runs the same loop of `iters` steps, one warp per scheduler or more, all in step: mode 0 and 1 exchange a
// value through shared memory (each thread stores its own, then reads the one a warp further on, as FA1's warps
// exchange their partial row maxes and outputs), mode 0 with __syncwarp (racy across warps; the timing only) and
// mode 1 with a __syncthreads between the store and the load (two buffers in turn: one barrier a step); mode 2 and 3 run a dependent FFMA instead, mode 3 with a
// __syncthreads after it. Thread 0 of each CTA logs its SM cycles over the loop; each step's value feeds the next, so
// the loop is one dependent chain per thread.
#include "../../cupy_kernels/calibrate/bench.cuh"  // u32, u64, sm_cycles(), keep()

extern "C" __global__ void exchange(int iters, int mode, u32 key, u32* sink, u64* cycles) {
  extern __shared__ float buffer[];
  volatile float* shared = buffer;
  const int other = (threadIdx.x + 32) % blockDim.x;
  float v = threadIdx.x * 1e-3f;
  __syncthreads();
  const u64 start = sm_cycles();
  if (mode < 2) {
    for (int i = 0; i < iters; ++i) {
      // Two buffers taken in turn: one barrier a step keeps every warp within a step of the others, so a store
      // never overwrites a value another warp has yet to read.
      volatile float* half = shared + (i & 1) * blockDim.x;
      half[threadIdx.x] = v;
      if (mode == 1) {
        __syncthreads();
      } else {
        __syncwarp();
      }
      v = v * 0.999f + half[other];
    }
  } else {
    for (int i = 0; i < iters; ++i) {
      v = v * 0.999f + 1e-3f;
      if (mode == 3) __syncthreads();
    }
  }
  const u64 stop = sm_cycles();
  if (threadIdx.x == 0) cycles[blockIdx.x] = stop - start;
  keep(__float_as_uint(v), key, sink);
}
