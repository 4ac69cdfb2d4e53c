// How long TMA tensor copies take one SM (validation/probes/tma_boxes.py): one thread per CTA issues `boxes` copies
// of 64 columns x 128 rows of bf16 (16 KiB, 128-byte swizzle: the boxes our FA3 kernel loads) of its own head
// (blockIdx.x) into shared memory, either all at once on one mbarrier (`serial` 0: the bytes in flight together) or
// one after the other, each waited for before the next (`serial` 1: one box's latency). Records per CTA the SM
// cycles from the first issue to the last issue and to the data in shared memory. The mbarrier and copy helpers
// are the kernel's own (fwd.cu).
#include "../../cupy_kernels/v3/fwd.cu"

constexpr u32 BOX_BYTES = 128 * 128;  // 128 rows x 64 bf16

extern "C" __global__ void __launch_bounds__(32) tma_boxes(const unsigned char* __restrict__ tensor_map, int boxes,
                                                           int serial, long long* __restrict__ cycles) {
  extern __shared__ unsigned char smem_raw[];
  __shared__ __align__(8) u64 barrier;
  const u32 bar = smem_addr(&barrier);
  const u32 dst = swizzle_aligned(smem_addr(smem_raw));
  if (threadIdx.x != 0) return;
  mbar_init(bar, 1);
  mbar_init_fence();
  const u64 tm = reinterpret_cast<u64>(tensor_map);
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(tm) : "memory");
  const long long t0 = clock64();
  long long issued = t0;
  if (serial == 0) {
    mbar_expect_tx(bar, boxes * BOX_BYTES);
    for (int b = 0; b < boxes; ++b) tma_load_3d(dst + b * BOX_BYTES, tm, bar, 0, b * 128, blockIdx.x);
    issued = clock64();
    mbar_wait(bar, 0);
  } else {
    for (int b = 0; b < boxes; ++b) {
      mbar_expect_tx(bar, BOX_BYTES);
      tma_load_3d(dst + b * BOX_BYTES, tm, bar, 0, b * 128, blockIdx.x);
      mbar_wait(bar, static_cast<u32>(b & 1));
    }
    issued = t0;
  }
  const long long done = clock64();
  cycles[2 * blockIdx.x] = issued - t0;
  cycles[2 * blockIdx.x + 1] = done - t0;
}
