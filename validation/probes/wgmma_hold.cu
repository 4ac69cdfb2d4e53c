// How long a consumer warpgroup of our FA3 kernel is held issuing its two GEMMs of a key tile, alone and beside a
// second warpgroup issuing the same (validation/probes/wgmma_hold.py). Per round, after a __syncthreads, each
// active warpgroup (warpgroup 1 starting `delay` cycles after warpgroup 0; an inactive one leaves at once) issues S = Q K^T (D / 16 wgmma
// m64n128k16 SS) and commits it, then P V (8 wgmma RS of m64nDk16) and commits it; it stamps clock64() when it
// starts, after the last wgmma instruction has issued, when S is complete (wait_group 1) and when P V is complete
// (wait_group 0). That is fwd.cu's order with intra-warpgroup overlap, without the softmax between. The operands
// are whatever the shared memory and registers hold: the timing does not depend on the values.
#include "../../cupy_kernels/v3/fwd.cu"

constexpr int HOLD_FIELDS = 4;  // start, issued, S done, P V done

template <int D>
__device__ __forceinline__ void wgmma_hold(int warpgroups, int delay, int rounds,
                                                  long long* __restrict__ stamps, float* __restrict__ sink) {
  extern __shared__ unsigned char smem_raw[];
  const u32 base = swizzle_aligned(smem_addr(smem_raw));
  const int wg = threadIdx.x / 128;
  float s_acc[64];
  float o_acc[D / 2];
  u32 p_frag[4];
#pragma unroll
  for (int i = 0; i < 64; ++i) s_acc[i] = 0.0f;
#pragma unroll
  for (int i = 0; i < D / 2; ++i) o_acc[i] = 0.0f;
#pragma unroll
  for (int e = 0; e < 4; ++e) p_frag[e] = 0x3f803f80u * (threadIdx.x & 1);
  if (wg >= warpgroups) return;
  const int threads = 128 * warpgroups;
  for (int r = 0; r < rounds; ++r) {
    asm volatile("bar.sync 1, %0;" ::"r"(threads) : "memory");
    const long long until = clock64() + (wg == 1 ? delay : 0);
    while (clock64() < until) {
    }
    const long long t0 = clock64();
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < D / 16; ++k) {
      wgmma_ss_n128(s_acc, desc_sw128(base + (k % 4) * 32, 16), desc_sw128(base + 16384 + (k % 4) * 32, 16), k > 0);
    }
    wgmma_commit();
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      if constexpr (D == 64) {
        wgmma_rs_n64(o_acc, p_frag, desc_sw128(base + 32768 + k * 2048, 16));
      } else {
        wgmma_rs_n128(o_acc, p_frag, desc_sw128(base + 32768 + k * 4096, 16));
      }
    }
    const long long t1 = clock64();
    wgmma_commit();
    wgmma_wait<1>();
    fence_regs(s_acc);
    const long long t2 = clock64();
    wgmma_wait<0>();
    fence_regs(o_acc);
    const long long t3 = clock64();
    if (threadIdx.x % 128 == 0) {
      long long* row = stamps + (r * 2 + wg) * HOLD_FIELDS;
      row[0] = t0;
      row[1] = t1;
      row[2] = t2;
      row[3] = t3;
    }
  }
  float acc = 0.0f;
#pragma unroll
  for (int i = 0; i < 64; ++i) acc += s_acc[i];
#pragma unroll
  for (int i = 0; i < D / 2; ++i) acc += o_acc[i];
  if (acc == 1234.5f) sink[threadIdx.x] = acc;
}

extern "C" __global__ void __launch_bounds__(256) wgmma_hold_d64(int warpgroups, int delay, int rounds,
                                                                 long long* stamps, float* sink) {
  wgmma_hold<64>(warpgroups, delay, rounds, stamps, sink);
}

extern "C" __global__ void __launch_bounds__(256) wgmma_hold_d128(int warpgroups, int delay, int rounds,
                                                                  long long* stamps, float* sink) {
  wgmma_hold<128>(warpgroups, delay, rounds, stamps, sink);
}
