// What the prologue of our FA3 forward costs one CTA (validation/probes/cta_prologue.py): the same 384 threads,
// the same shared-memory footprint (one CTA per SM), and fwd.cu's prologue step by step, each step stamped with
// clock64(): thread 0 initialises the kernel's five mbarriers and fences them; __syncthreads(); the producer
// warpgroup gives registers back (setmaxnreg.dec) and the consumers take them (setmaxnreg.inc), when SETMAXNREG;
// thread 0 acquires the three tensor maps, arms the Q barrier and issues the two 16 KiB boxes of a 128 x 128 Q
// tile; consumer 0 waits for them. Then the CTA exits: the next CTA on the SM shows the retire-and-launch gap of a
// CTA this size. Helpers (mbarriers, copies) are fwd.cu's.
#include "../../cupy_kernels/v3/fwd.cu"

constexpr int PROLOGUE_FIELDS = 12;
enum PrologueField {
  P_SM, P_ENTRY, P_BARRIERS, P_SYNC, P_PRODUCER_REGS, P_MAPS, P_Q_ISSUED,  // thread 0
  P_CONSUMER_ENTRY, P_CONSUMER_SYNC, P_CONSUMER_REGS, P_Q_READY, P_EXIT     // thread 128
};

template <bool SETMAXNREG>
__device__ __forceinline__ void prologue(const unsigned char* tensor_maps, long long* stamps) {
  extern __shared__ unsigned char smem_raw[];
  __shared__ __align__(8) u64 barriers[5];
  long long* row = stamps + blockIdx.x * PROLOGUE_FIELDS;
  if (threadIdx.x == 128) row[P_CONSUMER_ENTRY] = clock64();
  const u32 q_s = swizzle_aligned(smem_addr(smem_raw));
  const u32 q_full = smem_addr(&barriers[0]);
  if (threadIdx.x == 0) {
    row[P_ENTRY] = clock64();
    u32 smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    row[P_SM] = smid;
    for (int b = 0; b < 5; ++b) mbar_init(smem_addr(&barriers[b]), 1);
    mbar_init_fence();
    row[P_BARRIERS] = clock64();
  }
  __syncthreads();
  const int warpgroup = threadIdx.x / 128;
  if (warpgroup == 0) {
    if (threadIdx.x == 0) row[P_SYNC] = clock64();
    if constexpr (SETMAXNREG) asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(PRODUCER_REGS));
    if (threadIdx.x != 0) return;
    row[P_PRODUCER_REGS] = clock64();
    const u64 tm_q = reinterpret_cast<u64>(tensor_maps);
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(tm_q) : "memory");
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(tm_q + 128) : "memory");
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(tm_q + 256) : "memory");
    row[P_MAPS] = clock64();
    mbar_expect_tx(q_full, 2 * 128 * 128);
    for (int p = 0; p < 2; ++p) tma_load_3d(q_s + p * 128 * 128, tm_q, q_full, p * 64, 0, blockIdx.x);
    row[P_Q_ISSUED] = clock64();
    return;
  }
  if (threadIdx.x == 128) row[P_CONSUMER_SYNC] = clock64();
  if constexpr (SETMAXNREG) asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(CONSUMER_REGS));
  if (threadIdx.x == 128) row[P_CONSUMER_REGS] = clock64();
  mbar_wait(q_full, 0);
  if (threadIdx.x == 128) {
    row[P_Q_READY] = clock64();
    row[P_EXIT] = clock64();
  }
}

extern "C" __global__ void __launch_bounds__(THREADS, 1)
    cta_prologue_regs(const unsigned char* __restrict__ tensor_maps, long long* __restrict__ stamps) {
  prologue<true>(tensor_maps, stamps);
}

extern "C" __global__ void __launch_bounds__(THREADS, 1)
    cta_prologue_plain(const unsigned char* __restrict__ tensor_maps, long long* __restrict__ stamps) {
  prologue<false>(tensor_maps, stamps);
}
