// The SM clock at a given share of tensor-core work (validation/probes/tensor_clock.py).
//
// Every committed timing of a kernel that uses the tensor cores ran near 1.80 GHz on the H200, whatever its tensor
// activity, where a kernel without them ran near 1980 MHz (docs/results/clock_49/). This kernel mixes the two kinds
// of work in known shares: each loop iteration runs STEPS steps of CHAINS chaotic FFMA chains (x -> 1.9 - x * x,
// values that never settle, as fma_power.cu's MODE 1), and every PERIOD-th iteration two mma.sync m16n8k16 bf16 into
// two independent fp32 accumulator tiles (PERIOD 0: none). STEPS 0 with PERIOD 1 is mma.sync alone. Four CTAs of
// 256 threads per SM, one wave.
#include "../../cupy_kernels/calibrate/bench.cuh"

template <int STEPS, int PERIOD>
__global__ void __launch_bounds__(256, 4)
    tensor_clock(const float* __restrict__ seed, const u32* __restrict__ words, int iters, u32 key, u32* sink,
                 u64* cycles) {
  constexpr int CHAINS = 8;
  const u64 start = sm_cycles();
  const int lane = threadIdx.x & 31;
  const u32 a0 = words[lane], a1 = words[lane + 32], a2 = words[lane + 64], a3 = words[lane + 96];
  const u32 b0 = words[lane + 128], b1 = words[lane + 160];
  const float c = 1.9f + 0.0f * seed[256];
  float x[CHAINS];
  seed_chains(x, seed);
  float d[2][4] = {{0.0f, 0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 0.0f}};
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int s = 0; s < STEPS; ++s) {
#pragma unroll
      for (int k = 0; k < CHAINS; ++k) x[k] = fmaf(x[k], -x[k], c);
    }
    if (PERIOD > 0 && it % (PERIOD > 0 ? PERIOD : 1) == 0) {
#pragma unroll
      for (int t = 0; t < 2; ++t) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
            "{%0, %1, %2, %3};"
            : "+f"(d[t][0]), "+f"(d[t][1]), "+f"(d[t][2]), "+f"(d[t][3])
            : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
      }
    }
  }
  float acc = d[0][0] + d[0][1] + d[0][2] + d[0][3] + d[1][0] + d[1][1] + d[1][2] + d[1][3];
#pragma unroll
  for (int k = 0; k < CHAINS; ++k) acc += x[k];
  keep(__float_as_uint(acc), key, sink);
  record_cycles(start, cycles);
}

template __global__ void tensor_clock<64, 0>(const float*, const u32*, int, u32, u32*, u64*);
template __global__ void tensor_clock<64, 1024>(const float*, const u32*, int, u32, u32*, u64*);
template __global__ void tensor_clock<64, 64>(const float*, const u32*, int, u32, u32*, u64*);
template __global__ void tensor_clock<64, 1>(const float*, const u32*, int, u32, u32*, u64*);
template __global__ void tensor_clock<8, 1>(const float*, const u32*, int, u32, u32*, u64*);
template __global__ void tensor_clock<0, 1>(const float*, const u32*, int, u32, u32*, u64*);
