// Distributed shared memory between the two CTAs of a cluster on the H200 (validation/probes/dsmem.py): the latency
// of a load from the peer CTA's smem, the rate of thread loads and stores to it, the rate of bulk copies into it
// (cp.async.bulk smem -> peer smem, completing on the peer's mbarrier) and the latency of an mbarrier arrival sent
// to the peer. Clusters of 2 CTAs (__cluster_dims__), one CTA per SM. Cycles from clock64 of rank 0's SM.
// sm_cycles() and keep() from the calibration benchmarks; smem_addr and the mbarrier helpers from our FA3 kernel.
#include "../../cupy_kernels/calibrate/bench.cuh"
#include "../../cupy_kernels/v3/fwd.cu"

__device__ __forceinline__ u32 cluster_rank() {
  u32 rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return rank;
}

// The cluster-wide shared address of `local` (an address in this CTA's smem) in the smem of CTA `rank`.
__device__ __forceinline__ u32 cluster_addr(u32 local, u32 rank) {
  u32 out;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(out) : "r"(local), "r"(rank));
  return out;
}

__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// An arrival on an mbarrier in another CTA of the cluster (its cluster address).
__device__ __forceinline__ void mbar_arrive_remote(u32 bar) {
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(bar) : "memory");
}

// Spin until the phase with parity `parity` of a local mbarrier has completed, with cluster scope (the arrival
// came from another CTA).
__device__ __forceinline__ void mbar_wait_cluster(u32 bar, u32 parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n"
      "WAITC_%=:\n\t"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra WAITC_%=;\n\t}" ::"r"(bar),
      "r"(parity)
      : "memory");
}

constexpr int RING = 1024;  // u32 slots of the pointer-chase ring
constexpr int STRIDE = 33;  // slots between two steps: a new 128-byte line each step

// Thread 0 of rank 0 follows `steps` links of a ring in its own smem (REMOTE 0) or in the peer's (1), both through
// cluster addresses and ld.shared::cluster. out[cluster] = its cycles.
template <int REMOTE>
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128) dsmem_latency(int steps, u32* sink, u64* out) {
  __shared__ u32 ring[RING];
  const u32 rank = cluster_rank();
  for (int i = threadIdx.x; i < RING; i += blockDim.x) {
    ring[i] = cluster_addr(smem_addr(&ring[(i + STRIDE) % RING]), rank);
  }
  cluster_sync();
  if (rank == 0 && threadIdx.x == 0) {
    u32 p = cluster_addr(smem_addr(&ring[0]), REMOTE);
    const u64 start = sm_cycles();
    for (int s = 0; s < steps; ++s) asm volatile("ld.shared::cluster.u32 %0, [%0];" : "+r"(p) : : "memory");
    out[blockIdx.x / 2] = sm_cycles() - start;
    keep(p, 0xffffffffu, sink);
  }
  cluster_sync();  // the peer's smem stays until every read of it is done
}

constexpr int TILE = 32 * 1024;

// Thread loads (MODE 0 own smem, 1 rank 0 reads the peer's, 2 both read each other's) or stores (3: rank 0 writes
// the peer's) of 16 bytes, 4 independent per thread per iteration, conflict-free, through cluster addresses.
// out[cta] = the CTA's cycles from its first access to the end of its last (0 for a CTA that does not take part).
template <int MODE>
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(512) dsmem_stream(int iters, u32* sink, u64* out) {
  extern __shared__ __align__(128) unsigned char tile[];
  const u32 rank = cluster_rank();
  for (int i = threadIdx.x; i < TILE / 4; i += blockDim.x) reinterpret_cast<u32*>(tile)[i] = i * 2654435761u;
  cluster_sync();
  const bool active = MODE == 0 || MODE == 2 || rank == 0;
  const u32 target = MODE == 0 ? rank : rank ^ 1u;
  const u32 base = cluster_addr(smem_addr(tile), target);
  u32 acc = 0;
  const u64 start = sm_cycles();
  if (active) {
    const u32 lane_offset = (threadIdx.x % 32) * 16, warp = threadIdx.x / 32;
    for (int it = 0; it < iters; ++it) {
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const u32 addr = base + ((warp * 4 + k + it * 7) * 512 + lane_offset) % TILE;
        if constexpr (MODE == 3) {
          asm volatile("st.shared::cluster.v4.u32 [%0], {%1, %1, %1, %1};" ::"r"(addr), "r"(acc + it) : "memory");
        } else {
          u32 r0, r1, r2, r3;
          asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];"
                       : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                       : "r"(addr)
                       : "memory");
          acc ^= r0 ^ r1 ^ r2 ^ r3;
        }
      }
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = active ? sm_cycles() - start : 0;
  keep(acc, 0xffffffffu, sink);
  cluster_sync();
}

constexpr int CHUNK = 16 * 1024;

// Rank 0 copies `chunks` x 16 KiB from its smem into the peer's with cp.async.bulk, each completing bytes on the
// peer's mbarrier; the peer, once all have landed, arrives on rank 0's mbarrier. out[cluster] = rank 0's cycles from
// its first copy's issue to that arrival (one DSMEM latency after the last byte).
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128) dsmem_bulk(int chunks, u64* out) {
  extern __shared__ __align__(128) unsigned char buf[];
  __shared__ __align__(8) u64 bars[2];  // 0: the data's barrier (used on rank 1), 1: the reply's (used on rank 0)
  const u32 rank = cluster_rank();
  const u32 data_bar = smem_addr(&bars[0]), reply_bar = smem_addr(&bars[1]);
  if (threadIdx.x == 0) {
    mbar_init(data_bar, 1);
    mbar_init(reply_bar, 1);
    mbar_init_fence();
  }
  cluster_sync();
  if (threadIdx.x == 0 && rank == 1) {
    mbar_expect_tx(data_bar, chunks * CHUNK);
    mbar_wait_cluster(data_bar, 0);
    mbar_arrive_remote(cluster_addr(reply_bar, 0));
  }
  if (threadIdx.x == 0 && rank == 0) {
    const u32 dst = cluster_addr(smem_addr(buf), 1), peer_bar = cluster_addr(data_bar, 1);
    const u64 start = sm_cycles();
    for (int c = 0; c < chunks; ++c) {
      asm volatile(
          "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
          "r"(smem_addr(buf)), "n"(CHUNK), "r"(peer_bar)
          : "memory");
    }
    mbar_wait_cluster(reply_bar, 0);
    out[blockIdx.x / 2] = sm_cycles() - start;
  }
  cluster_sync();
}

// `rounds` round trips of mbarrier arrivals between the two CTAs: rank 0 arrives on rank 1's barrier and waits on its
// own; rank 1 waits on its own and arrives on rank 0's. out[cluster] = rank 0's cycles (two arrivals per round).
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(32) dsmem_pingpong(int rounds, u64* out) {
  __shared__ __align__(8) u64 bar;
  const u32 rank = cluster_rank();
  const u32 mine = smem_addr(&bar);
  if (threadIdx.x == 0) {
    mbar_init(mine, 1);
    mbar_init_fence();
  }
  cluster_sync();
  if (threadIdx.x == 0) {
    const u32 theirs = cluster_addr(mine, rank ^ 1u);
    const u64 start = sm_cycles();
    for (int r = 0; r < rounds; ++r) {
      if (rank == 0) {
        mbar_arrive_remote(theirs);
        mbar_wait_cluster(mine, r & 1);
      } else {
        mbar_wait_cluster(mine, r & 1);
        mbar_arrive_remote(theirs);
      }
    }
    if (rank == 0) out[blockIdx.x / 2] = sm_cycles() - start;
  }
  cluster_sync();
}
