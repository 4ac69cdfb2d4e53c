// The K/V load skeleton of our FA2 forward kernel alone (validation/probes/cp_async_stream.py): per key tile,
// wait for the tile's cp.async group, __syncthreads, then issue the cp.async copies of the tile STAGES - 1 ahead
// (K and V: 2 x BLOCK_N rows of D bf16, with fwd.cu's load_rows_async and padded smem rows), and nothing else.
// Each CTA streams `tiles` tiles of one head's K and V (`head` = its CTA index modulo `heads`); the host sizes
// `heads` so that the K/V of the heads in flight stay in L2 (many CTAs read each head, as FA2's Q blocks do) or
// exceed it (every tile from HBM). Records the cycles per CTA; the smem contents feed `keep`.
//
// cp_async_issue: how long a warp takes to issue CHUNKS cp.async of 16 bytes per thread (into distinct smem, from
// an L2-resident buffer) and how long until they have all landed: if the SM's load path holds only so many bytes
// in flight, issuing stalls once they are in flight, and the warp cannot go on to other work.
#include "../../cupy_kernels/common.cuh"

__device__ __forceinline__ unsigned long long stream_cycles() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
  return t;
}

template <int D, int BLOCK_N, int STAGES>
__global__ void __launch_bounds__(128) cp_async_stream(const u16* __restrict__ kv, int tiles, int heads, u32* sink,
                                                       unsigned long long* cycles) {
  constexpr int THREADS = 128;
  constexpr int LD = D + SMEM_PAD;
  extern __shared__ u16 smem[];  // STAGES x (K tile, V tile), padded rows; the host may ask for more (occupancy)
  const int tid = threadIdx.x;
  const int n = tiles * BLOCK_N;
  const u16* k_h = kv + static_cast<long long>(blockIdx.x % heads) * 2 * n * D;
  const u16* v_h = k_h + static_cast<long long>(n) * D;
  __syncthreads();
  const unsigned long long start = stream_cycles();
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    load_rows_async<BLOCK_N, D, THREADS>(smem + (2 * s) * BLOCK_N * LD, k_h, s * BLOCK_N, n, tid);
    load_rows_async<BLOCK_N, D, THREADS>(smem + (2 * s + 1) * BLOCK_N * LD, v_h, s * BLOCK_N, n, tid);
    cp_async_commit();
  }
  u32 acc = 0;
  for (int j = 0; j < tiles; ++j) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    const int j_next = j + STAGES - 1;
    if (j_next < tiles) {
      const int slot = j_next % STAGES;
      load_rows_async<BLOCK_N, D, THREADS>(smem + (2 * slot) * BLOCK_N * LD, k_h, j_next * BLOCK_N, n, tid);
      load_rows_async<BLOCK_N, D, THREADS>(smem + (2 * slot + 1) * BLOCK_N * LD, v_h, j_next * BLOCK_N, n, tid);
    }
    cp_async_commit();
    acc += smem[(j % STAGES) * 2 * BLOCK_N * LD + tid];  // one read of the published tile
  }
  if (acc == 0x7fffffffu) *sink = acc;
  __syncthreads();
  if (tid == 0) cycles[blockIdx.x] = stream_cycles() - start;
}

template <int CHUNKS>
__global__ void __launch_bounds__(128) cp_async_issue(const u16* __restrict__ src, int rounds, u32* sink,
                                                      unsigned long long* cycles) {
  extern __shared__ u16 smem[];  // CHUNKS x 128 threads x 16 bytes
  const int tid = threadIdx.x;
  const u32 dst = smem_addr(smem) + tid * 16;
  const u16* base = src + (blockIdx.x % 64) * (CHUNKS * 128 * 8);  // 64 distinct regions, L2-resident after round 0
  unsigned long long issue = 0, land = 0;
  for (int r = 0; r < rounds; ++r) {
    __syncthreads();
    const unsigned long long t0 = stream_cycles();
#pragma unroll
    for (int c = 0; c < CHUNKS; ++c) cp_async_16(dst + c * 128 * 16, base + (c * 128 + tid) * 8, true);
    cp_async_commit();
    const unsigned long long t1 = stream_cycles();
    cp_async_wait<0>();
    const unsigned long long t2 = stream_cycles();
    if (r > 0) {  // round 0 fills L2
      issue += t1 - t0;
      land += t2 - t0;
    }
  }
  if (smem[tid] == 0x7fff) *sink = 1u;
  if (tid % 32 == 0) {
    cycles[2 * (blockIdx.x * 4 + tid / 32)] = issue / (rounds - 1);
    cycles[2 * (blockIdx.x * 4 + tid / 32) + 1] = land / (rounds - 1);
  }
}
