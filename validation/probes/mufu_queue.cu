// Device probe kernels (mufu_queue.py): how deep is the queue MUFU.EX2 instructions wait in before the MUFU, and
// whose is it? The softmax pair's extra time is mio_throttle on its MUFU.EX2 instructions
// (validation/h200/stall_hold_on_h100/, docs/results/hold_38/README.txt): a warp whose next exp finds the queue full
// stalls there with its later FFMAs behind it.
// One CTA of 8 warps per SM: warp w sits on scheduler w % 4. Each active warp issues a burst of BURST independent
// ex2.approx (each on its own register, none read until the burst has issued) and stamps the SM clock before the
// burst, after its last exp has issued, and after it has read every result. While the queue has room the burst
// issues about an instruction a cycle; past its depth each exp waits for one to leave, every 8 cycles if the MUFU
// takes a warp instruction per 8 cycles on a scheduler (16 lanes a cycle per SM). ACTIVE selects the warps that burst:
// 0: warp 0 alone; 1: warps 0 and 4 (one scheduler); 2: warps 0 and 1 (two schedulers); 3: all eight.
// Lane 0 of each warp adds its stamps' differences over REPS bursts into issue[blockIdx.x * 8 + warp] and
// done[blockIdx.x * 8 + warp] (0: the warp did not burst).

constexpr int QUEUE_WARPS = 8;
constexpr int QUEUE_REPS = 16;

__device__ __forceinline__ float queue_ex2(float x) {
  float y;
  asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// shfl.sync.bfly as PTX: the intrinsic in a branch on the warp index comes out wrapped in WARPSYNC.COLLECTIVE.
__device__ __forceinline__ float queue_shfl(float v, int lane_mask) {
  float out;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(out) : "f"(v), "r"(lane_mask));
  return out;
}

__device__ __forceinline__ long long queue_clock() {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}

template <int BURST, int ACTIVE>
__global__ void __launch_bounds__(256, 1) mufu_queue(const float* __restrict__ seed, long long* __restrict__ issue,
                                                     long long* __restrict__ done, float* __restrict__ sink) {
  const int warp = threadIdx.x / 32;
  const bool active = ACTIVE == 0 ? warp == 0 : ACTIVE == 1 ? warp == 0 || warp == 4 : ACTIVE == 2 ? warp < 2 : true;
  float x[BURST];
#pragma unroll
  for (int b = 0; b < BURST; ++b) x[b] = seed[(threadIdx.x + b) % 64];
  long long issued = 0, finished = 0;
  float acc = 0.0f;
  for (int rep = 0; rep < QUEUE_REPS; ++rep) {
    __syncthreads();
    if (active) {
      const long long t0 = queue_clock();
      float y[BURST];
#pragma unroll
      for (int b = 0; b < BURST; ++b) y[b] = queue_ex2(x[b]);
      const long long t1 = queue_clock();
#pragma unroll
      for (int b = 0; b < BURST; ++b) acc += y[b];
      __syncwarp();
      const long long t2 = queue_clock();
      issued += t1 - t0;
      finished += t2 - t0;
#pragma unroll
      for (int b = 0; b < BURST; ++b) x[b] = x[b] * 0.5f + acc * 1e-30f;  // new inputs: no exp is reused
    }
  }
  if (threadIdx.x % 32 == 0) {
    issue[blockIdx.x * QUEUE_WARPS + warp] = active ? issued : 0;
    done[blockIdx.x * QUEUE_WARPS + warp] = active ? finished : 0;
  }
  if (acc == 1234.5f) sink[threadIdx.x] = acc;
}

// shfl_beside<MODE>: does a shuffle wait behind another warp's exps? Warp 0 runs a chain of dependent SHFL.BFLY
// (each reads the last result: the softmax's quad reduction of the row maximum) for `iters` x 32 steps; warp 4 (its
// scheduler) or warp 1 (another) runs 16 independent exp chains (each exp reads its chain's last result, 16 apart:
// no exp waits for its input) for `busy_iters` x 16 exps, started with warp 0 and longer than it. MODE: 0 warp 0
// alone; 1 exps on warp 4; 2 exps on warp 1; 3 independent FFMAs on warp 4 (issue slots taken, no MIO). Lane 0 of
// warp 0 writes its chain's cycles to cycles[blockIdx.x].
template <int MODE>
__global__ void __launch_bounds__(256, 1) shfl_beside(const float* __restrict__ seed, int iters, int busy_iters,
                                                      long long* __restrict__ cycles, float* __restrict__ sink) {
  const int warp = threadIdx.x / 32;
  const int busy_warp = MODE == 2 ? 1 : 4;
  float v = seed[threadIdx.x % 64];
  __syncthreads();
  if (warp == 0) {
    const long long t0 = queue_clock();
    for (int i = 0; i < iters; ++i) {
#pragma unroll
      for (int k = 0; k < 32; ++k) v = queue_shfl(v, 1 + (k & 1));
    }
    const long long t1 = queue_clock();
    if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  } else if (warp == busy_warp && MODE != 0) {
    float x[16];
#pragma unroll
    for (int b = 0; b < 16; ++b) x[b] = seed[(threadIdx.x + b) % 64];
    for (int i = 0; i < busy_iters; ++i) {
#pragma unroll
      for (int b = 0; b < 16; ++b) x[b] = MODE == 3 ? fmaf(x[b], 0.99951171875f, 0.25f) : queue_ex2(-x[b]);
    }
#pragma unroll
    for (int b = 0; b < 16; ++b) v += x[b];
  }
  if (v == 1234.5f) sink[threadIdx.x] = v;
}
