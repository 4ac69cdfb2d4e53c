// Memory microbenchmarks of `simgpu calibrate`: HBM read and copy, L2 read (plain loads and bulk async copies
// into shared memory), L2-resident copy, shared-memory read. Each kernel is one persistent wave; see bench.cuh.
//
// In-flight bytes: by Little's law a level sustains (bandwidth x latency) bytes in flight. HBM at 4.8 TB/s and
// ~1 us needs ~4.8 MB chip-wide (~36 KB per SM); L2 at ~12 TB/s and ~150 ns needs ~1.8 MB (~14 KB per SM). The
// global-load kernels keep UNROLL x 16 B per thread in flight: 8 x 16 B x 1024 threads = 128 KB per SM, several
// times either need, so the loads measure the memory, not the latency.
#include "bench.cuh"

// 16-byte load cached in L2 only (.cg): L1 must not serve the repeated reads of the L2 benchmark.
__device__ __forceinline__ uint4 load_l2(const uint4* p) {
  uint4 v;
  asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}

// 16-byte store marked evict-first (.cs, "streaming"): the copy's output is never read again, so it need not
// displace anything in L2.
__device__ __forceinline__ void store_streaming(uint4* p, uint4 v) {
  asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}

__device__ __forceinline__ u32 fold(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }

// Two ways to spread a buffer over the grid, each covering every 16-byte word exactly once per pass of
// UNROLL x (all threads) words. GRID_STRIDED: the UNROLL loads of a thread lie one grid width apart, so at any
// moment the grid touches UNROLL regions megabytes apart. CTA_TILES: each CTA takes UNROLL x blockDim consecutive
// words (the shape of framework elementwise kernels), so DRAM pages are read and written in contiguous runs.
enum Layout { GRID_STRIDED = 0, CTA_TILES = 1 };

template <int LAYOUT>
__device__ __forceinline__ void first_and_step(u32 pass_base, u32 unroll, u32& first, u32& step) {
  const u32 tile = LAYOUT == CTA_TILES ? unroll * blockDim.x : blockDim.x;
  first = pass_base + blockIdx.x * tile + threadIdx.x;
  step = LAYOUT == CTA_TILES ? blockDim.x : gridDim.x * blockDim.x;
}

// Reads `n_vec` 16-byte words once. The host makes `n_vec` a multiple of UNROLL x threads, so every thread runs
// whole passes (no tail loop). The XOR of everything read feeds `keep`, so no load is dead.
template <int UNROLL, int LAYOUT>
__global__ void __launch_bounds__(256, 4)
    hbm_read(const uint4* __restrict__ src, u32 n_vec, u32 key, u32* sink, u64* cycles) {
  const u64 start = sm_cycles();
  const u32 pass = UNROLL * gridDim.x * blockDim.x;
  u32 acc = 0;
  for (u32 base = 0; base < n_vec; base += pass) {
    u32 first, step;
    first_and_step<LAYOUT>(base, UNROLL, first, step);
    uint4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v[u] = src[first + u * step];  // all UNROLL loads issue before any use
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) acc ^= fold(v[u]);
  }
  keep(acc, key, sink);
  record_cycles(start, cycles);
}

// Copies `n_vec` 16-byte words (read + write both count as traffic), same passes as hbm_read; STREAMING picks
// evict-first stores.
template <int UNROLL, int LAYOUT, bool STREAMING>
__global__ void __launch_bounds__(256, 4)
    hbm_copy(const uint4* __restrict__ src, uint4* __restrict__ dst, u32 n_vec, u64* cycles) {
  const u64 start = sm_cycles();
  const u32 pass = UNROLL * gridDim.x * blockDim.x;
  for (u32 base = 0; base < n_vec; base += pass) {
    u32 first, step;
    first_and_step<LAYOUT>(base, UNROLL, first, step);
    uint4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v[u] = src[first + u * step];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      if constexpr (STREAMING) {
        store_streaming(dst + first + u * step, v[u]);
      } else {
        dst[first + u * step] = v[u];
      }
    }
  }
  record_cycles(start, cycles);
}

// Every thread makes `iters` x UNROLL loads from an L2-resident buffer of `mask + 1` 16-byte words (a power of
// two, so the wrap is an AND). Consecutive threads read consecutive words (coalesced 512 B per warp), and
// successive loads of one thread step by the whole grid, so all SMs sweep the whole buffer again and again.
template <int UNROLL>
__global__ void __launch_bounds__(256, 4)
    l2_read(const uint4* __restrict__ buf, u32 mask, int iters, u32 key, u32* sink, u64* cycles) {
  const u64 start = sm_cycles();
  const u32 stride = gridDim.x * blockDim.x;
  u32 i = blockIdx.x * blockDim.x + threadIdx.x;
  u32 acc = 0;
  for (int it = 0; it < iters; ++it) {
    uint4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v[u] = load_l2(buf + ((i + u * stride) & mask));
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) acc ^= fold(v[u]);
    i += UNROLL * stride;
  }
  keep(acc, key, sink);
  record_cycles(start, cycles);
}

// 16-byte store through inline asm: unlike a plain store, the compiler may not drop it as dead when the next pass
// of l2_copy overwrites the same word with the same value.
__device__ __forceinline__ void store_asm(uint4* p, uint4 v) {
  asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}

// Copies a buffer of gridDim.x x UNROLL x THREADS 16-byte words `passes` times: CTA b owns the tile of
// UNROLL x THREADS consecutive words at b x that (the CTA_TILES layout of the framework elementwise copies), so
// the grid is sized to the buffer and there is no tail. passes = 1 is one plain copy (at 16 MiB it lasts a few
// microseconds, the order of a launch); passes > 1 repeats it inside one launch, so the copy rate is measured
// free of launch gaps. Loads are .cg (L2 only): in the repeated copy L1 must not serve the second pass of a tile.
// Source and destination both fit the L2 (16 + 16 MiB of 60 MiB), so after the first touch no load misses to
// HBM; whether dirty destination lines drain to HBM meanwhile is not measured here (ncu's DRAM bytes would show).
template <int THREADS, int UNROLL>
__global__ void __launch_bounds__(THREADS, 4)
    l2_copy(const uint4* __restrict__ src, uint4* __restrict__ dst, int passes, u64* cycles) {
  const u64 start = sm_cycles();
  // THREADS is a constant, so the UNROLL addresses are one register plus immediate offsets (no spills).
  const u32 first = blockIdx.x * UNROLL * THREADS + threadIdx.x;
  const uint4* from = src + first;
  uint4* to = dst + first;
  for (int p = 0; p < passes; ++p) {
    uint4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v[u] = load_l2(from + u * THREADS);  // all loads before any store
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) store_asm(to + u * THREADS, v[u]);
  }
  record_cycles(start, cycles);
}

// The copy-engine path that TMA-fed GEMM and attention kernels use: one thread per CTA streams CHUNK-byte
// pieces of an L2-resident buffer into STAGES shared-memory buffers with `cp.async.bulk` (1-D bulk copies, the
// same engine as the tensor-map copies), each completing on its stage's mbarrier. A stage is refilled as soon
// as its previous copy has landed, so STAGES x CHUNK bytes per SM are always in flight. Nothing reads the
// shared memory: the copies are asm volatile with memory effects, so they cannot be removed.
template <int STAGES, int CHUNK>
__global__ void __launch_bounds__(32, 1)
    l2_bulk_read(const char* __restrict__ buf, u32 chunk_mask, int chunks, u64* cycles) {
  extern __shared__ __align__(128) char smem[];  // STAGES x CHUNK bytes, dynamic (opt-in above 48 KB)
  __shared__ __align__(8) u64 full[STAGES];
  const u64 start = sm_cycles();
  if (threadIdx.x == 0) {
    const u32 smem_base = static_cast<u32>(__cvta_generic_to_shared(smem));
    const u32 bar_base = static_cast<u32>(__cvta_generic_to_shared(full));
#pragma unroll
    for (int s = 0; s < STAGES; ++s) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_base + 8 * s));
    // Make the initialised barriers visible to the async proxy (the copy engine) before it signals them.
    asm volatile("fence.mbarrier_init.release.cluster;\n\tfence.proxy.async.shared::cta;" ::: "memory");
    // Chunk c of CTA b is chunk (c x gridDim + b) of the buffer: neighbouring CTAs read neighbouring chunks.
    auto issue = [&](int c) {
      const int s = c % STAGES;
      const u32 bar = bar_base + 8 * s;
      const char* src = buf + static_cast<u64>((static_cast<u32>(c) * gridDim.x + blockIdx.x) & chunk_mask) * CHUNK;
      asm volatile(
          "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n\t"
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%2], [%3], %1, [%0];" ::"r"(bar),
          "n"(CHUNK), "r"(smem_base + s * CHUNK), "l"(src)
          : "memory");
    };
    for (int c = 0; c < STAGES && c < chunks; ++c) issue(c);
    // Wait for chunk c - STAGES in stage c % STAGES (phase parity flips each time the stage completes), then
    // reuse the stage for chunk c.
    for (int c = STAGES; c < chunks + STAGES; ++c) {
      const u32 bar = bar_base + 8 * (c % STAGES);
      const u32 parity = static_cast<u32>((c / STAGES - 1) & 1);
      asm volatile(
          "{\n\t.reg .pred done;\n"
          "WAIT_%=:\n\t"
          "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
          "@!done bra WAIT_%=;\n\t}" ::"r"(bar),
          "r"(parity)
          : "memory");
      if (c < chunks) issue(c);
    }
  }
  record_cycles(start, cycles);
}

// Each thread makes `iters` x UNROLL 16-byte shared-memory loads. A warp's load covers 512 contiguous bytes, which
// the hardware serves as 4 conflict-free 128-byte wavefronts; the UNROLL loads of one iteration sit 2 KiB apart
// (ptxas folds the constant offsets into the loads: no address arithmetic in the loop). The buffer never changes,
// so ptxas merges plain loads of one address across iterations (it did: one LDS per four iterations, a 4x
// overcount); `ld.volatile` forbids that and is still a plain LDS.128. The loads' XOR feeds `keep`.
template <int THREADS, int UNROLL>
__global__ void __launch_bounds__(THREADS, 2)
    smem_read(const uint4* __restrict__ init, int iters, u32 key, u32* sink, u64* cycles) {
  constexpr int WORDS = THREADS + (UNROLL - 1) * 128;  // 16-byte words the loads touch (offsets 2 KiB = 128 words)
  __shared__ uint4 buf[WORDS];
  for (int w = threadIdx.x; w < WORDS; w += THREADS) buf[w] = init[w];  // random data, never zeros
  __syncthreads();
  const u64 start = sm_cycles();
  const u32 addr = static_cast<u32>(__cvta_generic_to_shared(buf + threadIdx.x));
  u32 acc = 0;
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      uint4 v;
      asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                   : "r"(addr + u * 2048));
      acc ^= fold(v);
    }
  }
  keep(acc, key, sink);
  record_cycles(start, cycles);
}
