// Shared-memory read bandwidth by instruction, warps and independent loads per warp (validation/probes/smem_read.py).
//
// One CTA per SM of blockDim.x threads. Each warp runs `iters` iterations of ILP independent loads of 512 bytes per
// warp instruction (one 16-byte row per lane), conflict-free, at addresses that differ between warps and
// iterations inside a 32 KiB tile, and folds what it loaded into one register (XOR) so nothing is dead.
// KIND 0: ldmatrix.x4 (4 8x8 matrices); 1: ldmatrix.x4.trans; 2: ld.shared.v4.u32 (LDS.128).
// out[cta] = the CTA's SM cycles (from after the tile is written to when every warp is done).
#include "../../cupy_kernels/calibrate/bench.cuh"  // u32, u64, sm_cycles()

constexpr int TILE_BYTES = 32 * 1024;

template <int KIND>
__device__ __forceinline__ u32 load512(u32 addr) {
  u32 r0, r1, r2, r3;
  if constexpr (KIND == 0) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(addr));
  } else if constexpr (KIND == 1) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(addr));
  } else {
    asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(addr));
  }
  return r0 ^ r1 ^ r2 ^ r3;
}

template <int KIND, int ILP>
__global__ void __launch_bounds__(1024, 1) smem_read(int iters, u32* sink, u64* out) {
  extern __shared__ __align__(128) char tile[];
  for (int i = threadIdx.x; i < TILE_BYTES / 4; i += blockDim.x) reinterpret_cast<u32*>(tile)[i] = i * 2654435761u;
  __syncthreads();
  const u64 start = sm_cycles();
  const u32 base = static_cast<u32>(__cvta_generic_to_shared(tile));
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  u32 acc = 0;
  for (int it = 0; it < iters; ++it) {
    u32 part[ILP];
#pragma unroll
    for (int j = 0; j < ILP; ++j) {
      const int chunk = (it * ILP + j) * warps + warp;  // 512-byte chunks: every warp and load a different one
      part[j] = load512<KIND>(base + (chunk * 512 + lane * 16) % TILE_BYTES);
    }
#pragma unroll
    for (int j = 0; j < ILP; ++j) acc ^= part[j];
  }
  if (acc == 0x9E3779B9u) *sink = acc;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = sm_cycles() - start;
}
