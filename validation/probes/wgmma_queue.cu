// When each wgmma instruction of a consumer warpgroup of our FA3 kernel is let go, alone and beside a second
// warpgroup issuing the same (validation/probes/wgmma_queue.py). As wgmma_hold.cu (S = Q K^T: D / 16 wgmma m64n128k16
// SS, committed; P V: 8 wgmma RS m64nDk16, committed; warpgroup 1 starting `delay` cycles after warpgroup 0), but the
// issuing warp stamps clock64() after every wgmma instruction, so the stamps show when the tensor cores' queue took
// each one and whose instruction it took when both wait. Stamps per warpgroup and round: start, one per instruction,
// S complete (wait_group 1), P V complete (wait_group 0). With SOFTMAX_BESIDE, warpgroup 1 runs `delay` of the
// consumer's softmaxes of a 64 x 128 tile (fwd.cu's softmax_tile and pack_p_tile) instead of spinning, so the stamps
// show whether another warpgroup's elementwise work slows the first one's hand-ins.
#include "../../cupy_kernels/v3/fwd.cu"

template <int D, bool SOFTMAX_BESIDE = false>
__device__ __forceinline__ void wgmma_queue(int warpgroups, int delay, int rounds, long long* __restrict__ stamps,
                                            float* __restrict__ sink) {
  constexpr int S_STEPS = D / 16;
  constexpr int FIELDS = 1 + S_STEPS + 8 + 2;
  extern __shared__ unsigned char smem_raw[];
  const u32 base = swizzle_aligned(smem_addr(smem_raw));
  const int wg = threadIdx.x / 128;
  float s_acc[64];
  float o_acc[D / 2];
  u32 p_frag[4];
  long long t[FIELDS];
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
    if constexpr (SOFTMAX_BESIDE) {
      if (wg == 1) {
        float row_max[2] = {NEG_INF, NEG_INF}, row_sum[2] = {0.0f, 0.0f}, alpha[2];
        u32 packed[BLOCK_N / 16][4];
        for (int n = 0; n < delay; ++n) {
          fence_regs(s_acc);
          softmax_tile(s_acc, row_max, row_sum, alpha, 0.125f * LOG2E);
          pack_p_tile(packed, s_acc);
          fence_regs(packed);
        }
        if (row_sum[0] == 1234.5f) sink[threadIdx.x] = alpha[0];
      }
    } else {
      const long long until = clock64() + (wg == 1 ? delay : 0);
      while (clock64() < until) {
      }
    }
    // P's registers pinned before the fence: computed between the wgmmas, they make ptxas inject another fence.
#pragma unroll
    for (int e = 0; e < 4; ++e) asm volatile("" : "+r"(p_frag[e])::"memory");
    t[0] = clock64();
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < S_STEPS; ++k) {
      wgmma_ss_n128(s_acc, desc_sw128(base + (k % 4) * 32, 16), desc_sw128(base + 16384 + (k % 4) * 32, 16), k > 0);
      t[1 + k] = clock64();
    }
    wgmma_commit();
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      if constexpr (D == 64) {
        wgmma_rs_n64(o_acc, p_frag, desc_sw128(base + 32768 + k * 2048, 16));
      } else {
        wgmma_rs_n128(o_acc, p_frag, desc_sw128(base + 32768 + k * 4096, 16));
      }
      t[1 + S_STEPS + k] = clock64();
    }
    wgmma_commit();
    wgmma_wait<1>();
    fence_regs(s_acc);
    t[FIELDS - 2] = clock64();
    wgmma_wait<0>();
    fence_regs(o_acc);
    t[FIELDS - 1] = clock64();
    if (threadIdx.x % 128 == 0) {
      long long* row = stamps + (r * 2 + wg) * FIELDS;
#pragma unroll
      for (int i = 0; i < FIELDS; ++i) row[i] = t[i];
    }
  }
  float acc = 0.0f;
#pragma unroll
  for (int i = 0; i < 64; ++i) acc += s_acc[i];
#pragma unroll
  for (int i = 0; i < D / 2; ++i) acc += o_acc[i];
  if (acc == 1234.5f) sink[threadIdx.x] = acc;
}

extern "C" __global__ void __launch_bounds__(256) wgmma_queue_d64(int warpgroups, int delay, int rounds,
                                                                  long long* stamps, float* sink) {
  wgmma_queue<64>(warpgroups, delay, rounds, stamps, sink);
}

extern "C" __global__ void __launch_bounds__(256) wgmma_queue_d128(int warpgroups, int delay, int rounds,
                                                                   long long* stamps, float* sink) {
  wgmma_queue<128>(warpgroups, delay, rounds, stamps, sink);
}

extern "C" __global__ void __launch_bounds__(256) wgmma_queue_softmax_d64(int warpgroups, int softmaxes, int rounds,
                                                                          long long* stamps, float* sink) {
  wgmma_queue<64, true>(warpgroups, softmaxes, rounds, stamps, sink);
}

extern "C" __global__ void __launch_bounds__(256) wgmma_queue_softmax_d128(int warpgroups, int softmaxes, int rounds,
                                                                           long long* stamps, float* sink) {
  wgmma_queue<128, true>(warpgroups, softmaxes, rounds, stamps, sink);
}
