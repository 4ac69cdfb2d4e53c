// FA3's dQ accumulation alone (validation/probes/bulk_reduce.py): per Q block, each consumer warpgroup of FA3's
// backward stages its fp32 share of dQ_i in shared memory and one thread adds it to the global accumulator with one
// TMA bulk reduction (`cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32`, hopper/copy_sm90_bulk_reduce.hpp),
// then waits until the copy engine has read the staging buffer before the next Q block overwrites it.
//
// Each CTA adds `BYTES` from its staging buffer `passes` times, walking `tiles` tiles of its region and starting again
// (a region of tiles x BYTES stays in L2 after its first pass), with an optional spin of `gap_cycles` before each add
// standing in for the rest of a backward step. `group` CTAs share one region and walk it in the same order, as the key
// blocks of one head add into the same dQ_i at about the same time; group = 1 gives every CTA its own region.
// MODE 0: the bulk reduce-add. MODE 1: a bulk store of the same bytes (`cp.async.bulk.global.shared::cta`), the L2
// write without the add. MODE 2: a bulk load of `BYTES` from an L2-resident source per pass (completing on an
// mbarrier; FA3's Q and dO tiles), no add. MODE 3: the load and the reduce-add of each pass together, as a backward
// step issues both.
//
// Records per CTA the cycles from the first add to the last one's completion (`cp.async.bulk.wait_group 0`).
#include "../../cupy_kernels/common.cuh"

__device__ __forceinline__ long long bulk_clock() {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
  return t;
}

__device__ __forceinline__ u32 smem_address(const void* p) {
  return static_cast<u32>(__cvta_generic_to_shared(p));
}

template <int BYTES, int MODE>
__global__ void __launch_bounds__(128) bulk_reduce(float* __restrict__ acc, const float* __restrict__ src, int tiles,
                                                   int passes, int group, int gap_cycles,
                                                   long long* __restrict__ cta_cycles) {
  static_assert(BYTES % 16 == 0, "bulk copies move multiples of 16 bytes");
  constexpr int FLOATS = BYTES / 4;
  extern __shared__ __align__(128) unsigned char smem[];
  float* staging = reinterpret_cast<float*>(smem);
  float* landing = reinterpret_cast<float*>(smem + BYTES);
  __shared__ __align__(8) unsigned long long loaded;
  for (int i = threadIdx.x; i < FLOATS; i += blockDim.x) {
    staging[i] = 1e-3f * static_cast<float>((blockIdx.x + i) % 7 + 1);
  }
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_address(&loaded)) : "memory");
  }
  // The generic-proxy writes above must be visible to the copy engine (the async proxy) before it reads them.
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  float* region = acc + static_cast<long long>(blockIdx.x / group) * tiles * FLOATS;
  const float* source = src + static_cast<long long>(blockIdx.x % tiles) * FLOATS;
  const long long start = bulk_clock();
  if (threadIdx.x == 0) {
    for (int pass = 0; pass < passes; ++pass) {
      if (gap_cycles > 0) {
        const long long until = bulk_clock() + gap_cycles;
        while (bulk_clock() < until) {
        }
      }
      float* tile = region + static_cast<long long>(pass % tiles) * FLOATS;
      if constexpr (MODE == 2 || MODE == 3) {
        const u32 bar = smem_address(&loaded);
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(BYTES) : "memory");
        asm volatile(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                smem_address(landing)),
            "l"(source), "r"(BYTES), "r"(bar)
            : "memory");
      }
      if constexpr (MODE == 0 || MODE == 3) {
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;" ::"l"(tile),
                     "r"(smem_address(staging)), "r"(BYTES)
                     : "memory");
      } else if constexpr (MODE == 1) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(tile),
                     "r"(smem_address(staging)), "r"(BYTES)
                     : "memory");
      }
      if constexpr (MODE != 2) {
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        // The staging buffer may be written again once the engine has read it (FA3 waits so, per warpgroup).
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
      }
      if constexpr (MODE == 2 || MODE == 3) {
        const u32 bar = smem_address(&loaded);
        const u32 parity = static_cast<u32>(pass & 1);
        u32 done = 0;
        while (!done) {
          asm volatile(
              "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
              : "=r"(done)
              : "r"(bar), "r"(parity)
              : "memory");
        }
      }
    }
    if constexpr (MODE != 2) {
      asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");  // the adds are done, not only read
    }
    cta_cycles[blockIdx.x] = bulk_clock() - start;
  }
}
