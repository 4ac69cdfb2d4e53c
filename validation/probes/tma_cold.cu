// What a CTA's first TMA copies cost (validation/probes/tma_cold.py). One thread per CTA issues five copies of one
// 16 KiB box (64 bf16 columns x 128 rows, 128-byte swizzle, as our FA3 kernel's), each waited for before the next,
// and stamps clock64() before and after each copy instruction and when its bytes have landed:
//   0: map A, the CTA's own head, rows 0..127       (the CTA's first copy: its descriptor and its page are new)
//   1: map A, the CTA's own head, rows 128..255     (descriptor and page used just before)
//   2: map A, a head `far_heads` away, rows 0..127  (descriptor used, page new: heads are 64 KiB apart)
//   3: map B, the CTA's own head, rows 256..383     (a second map of the same tensor: descriptor new, page used)
//   4: map B, the far head, rows 128..255           (both used)
// `fence` 1 acquires both maps for the tensor-map proxy first, as fwd.cu's producer does; 0 skips it. The
// mbarrier and copy helpers are fwd.cu's.
#include "../../cupy_kernels/v3/fwd.cu"

constexpr u32 COLD_BOX_BYTES = 128 * 128;
constexpr int COLD_COPIES = 5;

extern "C" __global__ void __launch_bounds__(32) tma_cold(const unsigned char* __restrict__ tensor_maps, int stride,
                                                          int far_heads, int fence, long long* __restrict__ stamps) {
  extern __shared__ unsigned char smem_raw[];
  __shared__ __align__(8) u64 barrier;
  const u32 bar = smem_addr(&barrier);
  const u32 dst = swizzle_aligned(smem_addr(smem_raw));
  if (threadIdx.x != 0) return;
  long long* row = stamps + blockIdx.x * (2 + 3 * COLD_COPIES);
  u32 smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  row[0] = smid;
  row[1] = clock64();
  mbar_init(bar, 1);
  mbar_init_fence();
  const u64 tm_a = reinterpret_cast<u64>(tensor_maps);
  const u64 tm_b = tm_a + TENSOR_MAP_BYTES;
  if (fence) {
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(tm_a) : "memory");
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(tm_b) : "memory");
  }
  const int own = blockIdx.x * stride;  // CTAs `stride` heads apart: pages of their own
  const int far = own + far_heads;
  const u64 maps[COLD_COPIES] = {tm_a, tm_a, tm_a, tm_b, tm_b};
  const int heads_of[COLD_COPIES] = {own, own, far, own, far};
  const int rows_of[COLD_COPIES] = {0, 128, 0, 256, 128};
#pragma unroll
  for (int i = 0; i < COLD_COPIES; ++i) {
    mbar_expect_tx(bar, COLD_BOX_BYTES);
    row[2 + 3 * i] = clock64();
    tma_load_3d(dst + i * COLD_BOX_BYTES, maps[i], bar, 0, rows_of[i], heads_of[i]);
    row[3 + 3 * i] = clock64();
    mbar_wait(bar, static_cast<u32>(i & 1));
    row[4 + 3 * i] = clock64();
  }
}
