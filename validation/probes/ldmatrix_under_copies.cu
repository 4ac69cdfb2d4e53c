// An ldmatrix's latency while cp.async copies land in the same SM's shared memory
// (validation/probes/ldmatrix_under_copies.py). One CTA per SM of WARPS warps; each round every warp issues
// COPIES cp.async of 16 bytes per thread (fresh addresses, so from HBM) into its own part of a copy region, commits
// them, then runs a chain of `chain` ldmatrix.x4 from another region, each one's address depending on the one
// before (through `zero`, 0 at run time), then waits for its copies and meets the others at a barrier: the shape of
// our standard PV kernel's k step (copies issued, then the product's fragment loads). Thread 0 of each warp adds
// up the cycles of its chains and of its rounds: out[(cta * WARPS + warp) * 2 + {0, 1}].
#include "../../cupy_kernels/common.cuh"

__device__ __forceinline__ u32 ldsm_clock() {  // the SM's 32-bit cycle counter: a run's rounds span < 2^32
  u32 t;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(t));
  return t;
}

template <int WARPS, int COPIES>
__global__ void __launch_bounds__(WARPS * 32)
    ldmatrix_under_copies(const uint4* __restrict__ src, int rounds, int chain, u32 zero, long long* out) {
  extern __shared__ __align__(16) u16 smem[];  // copy region: WARPS x COPIES x 512 bytes; then 4 KB of fragments
  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int lane = tid % 32;
  const u32 copy_base = smem_addr(smem) + warp * COPIES * 512 + lane * 16;
  const u32 chain_base = smem_addr(smem) + WARPS * COPIES * 512;
  const long long per_round = static_cast<long long>(WARPS) * 32 * COPIES;
  const uint4* cta_src = src + static_cast<long long>(blockIdx.x) * rounds * per_round;
  u32 addr = chain_base + (lane % 16) * 16 + (lane / 16) * 256;
  u32 sink = 0;
  u32 chain_cycles = 0;
  __syncthreads();
  const u32 start = ldsm_clock();
  for (int r = 0; r < rounds; ++r) {
    const uint4* round_src = cta_src + r * per_round + warp * 32 * COPIES + lane;
#pragma unroll
    for (int c = 0; c < COPIES; ++c) cp_async_16(copy_base + c * 512, round_src + c * 32, true);
    cp_async_commit();
    const u32 chain_start = ldsm_clock();
    for (int k = 0; k < chain; ++k) {
      u32 f[4];
      ldmatrix_x4(f, addr);
      addr += (f[0] ^ f[3]) & zero;  // the next address waits for this fragment
      sink ^= f[1] ^ f[2];
    }
    asm volatile("" ::"r"(addr));
    chain_cycles += ldsm_clock() - chain_start;
    cp_async_wait<0>();
    __syncthreads();
  }
  const u32 total = ldsm_clock() - start;
  if (lane == 0) {
    out[(blockIdx.x * WARPS + warp) * 2] = chain_cycles;
    out[(blockIdx.x * WARPS + warp) * 2 + 1] = total;
  }
  if (sink == 0x9e3779b9u && zero == 1u) out[0] = -1;
}
