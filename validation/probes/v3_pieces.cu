// The pieces of one key tile of our FA3 consumer, each alone on one SM (validation/probes/v3_pieces.py): the
// softmax of a 64 x 128 score tile and its packing into P, with nothing beside it or beside a warpgroup that keeps
// the tensor core busy; and the synchronisations a consumer passes per key tile, when what they wait for has
// already happened. The softmax, the barriers and the wgmma plumbing are the kernel's own (fwd.cu).
#include "../../cupy_kernels/v3/fwd.cu"

// `iters` softmaxes of one warpgroup (softmax_tile + pack_p_tile, each pinned in registers as the kernel's wgmma
// fences pin them), or one of its passes: PART_EXP runs the exp pass and P's packing at fixed row maxes, PART_MAX
// the row-max pass alone (`pass_pair`). Lane 0 of each warp records the loop's cycles in cycles[slot].
constexpr int PART_WHOLE = 0, PART_EXP = 1, PART_MAX = 2;
template <int PART = PART_WHOLE>
__device__ __forceinline__ void softmax_loop(const float* __restrict__ scores, int iters, long long* __restrict__ cycles,
                                             int slot, float* __restrict__ sink) {
  float s_acc[BLOCK_N / 2];
#pragma unroll
  for (int i = 0; i < BLOCK_N / 2; ++i) s_acc[i] = scores[((threadIdx.x % 128) * (BLOCK_N / 2) + i) % 4096];
  float row_max[2] = {NEG_INF, NEG_INF}, row_sum[2] = {0.0f, 0.0f}, alpha[2];
  float max_scaled[2] = {2.0f, 3.0f};  // the exp pass's fixed maxes; the row-max pass overwrites them
  if constexpr (PART != PART_WHOLE) alpha[0] = alpha[1] = 1.0f;
  u32 p_frag[BLOCK_N / 16][4];
  const float scale_log2 = 0.125f * LOG2E;
  __syncwarp();
  const long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
    fence_regs(s_acc);  // as the kernel's fence after wgmma.wait_group: a fresh S
    if constexpr (PART == PART_MAX) {
      row_max_pass(s_acc, row_max, row_sum, alpha, max_scaled, scale_log2);
      fence_regs(max_scaled);  // each iteration's maxes are used
    } else {
      if constexpr (PART == PART_WHOLE) {
        softmax_tile(s_acc, row_max, row_sum, alpha, scale_log2);
      } else {
        exp_pass(s_acc, row_sum, max_scaled, scale_log2);
      }
      pack_p_tile(p_frag, s_acc);
      fence_regs(p_frag);  // as the kernel's fence before the RS product reads P
#pragma unroll
      for (int i = 0; i < BLOCK_N / 2; ++i) s_acc[i] *= 8.0f;  // the next S: P scaled back to scores' range
    }
  }
  __syncwarp();
  const long long t1 = clock64();
  if (threadIdx.x % 32 == 0) cycles[slot] = t1 - t0;
  float acc = row_sum[0] + row_sum[1] + alpha[0];
  if constexpr (PART != PART_WHOLE) acc += max_scaled[1];
  if constexpr (PART != PART_MAX) {
#pragma unroll
    for (int k = 0; k < BLOCK_N / 16; ++k) acc += __uint_as_float(p_frag[k][0] ^ p_frag[k][3]);
  }
  if (acc == 1234.5f) sink[threadIdx.x % 256] = acc;
}

// Warpgroup 0 runs `iters` softmaxes (softmax_loop) and records its cycles. BESIDE 0: alone (one warpgroup).
// 1: warpgroup 1 issues `tc_batches` batches of 4 wgmma m64n128k16 SS (S of d = 64), each committed and waited
// for. 2: as 1 with two batches in flight (the next issued before waiting for the last), so the tensor core never
// idles between them. The operands are whatever the shared memory holds: the timing does not depend on the values.
template <int BESIDE>
__global__ void __launch_bounds__(256) softmax_beside(const float* __restrict__ scores, int iters, int tc_batches,
                                                      long long* __restrict__ cycles, float* __restrict__ sink) {
  extern __shared__ unsigned char smem_raw[];
  const u32 base = swizzle_aligned(smem_addr(smem_raw));
  const int wg = threadIdx.x / 128;
  if (wg == 0) {
    softmax_loop<>(scores, iters, cycles, blockIdx.x * 8 + threadIdx.x / 32, sink);
  } else if constexpr (BESIDE > 0) {
    float d[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) d[i] = 0.0f;
    const long long t0 = clock64();
    for (int b = 0; b < tc_batches; ++b) {
      wgmma_fence();
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const u64 a = desc_sw128(base + k * 32, 16);
        const u64 bdesc = desc_sw128(base + 8192 + k * 32, 16);
        wgmma_ss_n128(d, a, bdesc, true);
      }
      wgmma_commit();
      if constexpr (BESIDE == 2) {
        wgmma_wait<1>();
      } else {
        wgmma_wait<0>();
      }
    }
    wgmma_wait<0>();
    fence_regs(d);
    const long long t1 = clock64();
    if (threadIdx.x % 32 == 0) cycles[blockIdx.x * 8 + threadIdx.x / 32] = t1 - t0;
    float acc = 0.0f;
#pragma unroll
    for (int i = 0; i < 64; ++i) acc += d[i];
    if (acc == 1234.5f) sink[threadIdx.x] = acc;
  }
}

// WGS warpgroups of one CTA each run `iters` softmaxes (softmax_loop) at once, as the kernel's consumer
// warpgroups do when nothing else holds them: whether two softmaxes on one SM share its pipes as well as the pipes'
// rates allow. Lane 0 of each warp records its cycles in cycles[blockIdx.x * 16 + warp] (as pass_pair).
template <int WGS>
__global__ void __launch_bounds__(WGS * 128) softmax_group(const float* __restrict__ scores, int iters,
                                                           long long* __restrict__ cycles, float* __restrict__ sink) {
  softmax_loop<>(scores, iters, cycles, blockIdx.x * 16 + threadIdx.x / 32, sink);
}

// The softmax's two passes in separate warpgroups: whether one warpgroup's row-max pass (FMNMX, shuffles) runs
// beside another's exp pass (FFMA, MUFU.EX2, FADD, the packing of P) on the same SM without slowing it
// (softmax_loop<PART_EXP>, softmax_loop<PART_MAX>). MODE 0: warpgroup 0 runs the exp pass alone; 1: the row max
// alone; 2: warpgroup 0 the exp pass and warpgroup 1 the row max at once; 3: both the exp pass; 4: both the row max.
template <int MODE>
__global__ void __launch_bounds__(256) pass_pair(const float* __restrict__ scores, int iters,
                                                 long long* __restrict__ cycles, float* __restrict__ sink) {
  const int wg = threadIdx.x / 128;
  const int slot = blockIdx.x * 16 + threadIdx.x / 32;
  const bool runs_exp = MODE == 0 || MODE == 3 || (MODE == 2 && wg == 0);
  if (runs_exp) {
    softmax_loop<PART_EXP>(scores, iters, cycles, slot, sink);
  } else {
    softmax_loop<PART_MAX>(scores, iters, cycles, slot, sink);
  }
}

// Synchronisation costs, per iteration, cycles of warp 0 of warpgroup 0:
//   MODE 0: mbar_wait on a phase that completed long ago (the consumer's K_j / V_j wait when the data is there).
//   MODE 1: a hand-off through two mbarriers (as the consumers' release and the producer's wait): warpgroup 0's
//           warps arrive on A and wait on B; warpgroup 1's wait on A and arrive on B. One iteration = 2 hand-offs.
//   MODE 2: the ping-pong turn (named barriers 1 and 2 over 256 threads, as fwd.cu's turn_wait / turn_pass),
//           with no work between: one iteration = 2 hand-offs.
//   MODE 3: wgmma fence, commit of an empty group, wait_group 0 (nothing in flight).
//   MODE 4: fence, one wgmma m64n128k16 SS, commit, wait_group 0 (64 cycles of tensor work).
template <int MODE>
__global__ void __launch_bounds__(256) sync_cost(int iters, long long* __restrict__ cycles, float* __restrict__ sink) {
  extern __shared__ unsigned char smem_raw[];
  __shared__ __align__(8) u64 bars[3];
  const u32 base = swizzle_aligned(smem_addr(smem_raw));
  const u32 done = smem_addr(&bars[0]), a_bar = smem_addr(&bars[1]), b_bar = smem_addr(&bars[2]);
  const int wg = threadIdx.x / 128;
  const int lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    mbar_init(done, 1);
    mbar_init(a_bar, 4);  // lane 0 of each warp of the arriving warpgroup
    mbar_init(b_bar, 4);
    mbar_init_fence();
    mbar_arrive(done);  // phase 0 complete
  }
  __syncthreads();
  float d[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) d[i] = 0.0f;
  if (MODE == 2 && wg == 1) named_arrive(1);  // warpgroup 0 takes the first turn
  __syncwarp();
  const long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
    const u32 parity = it & 1;
    if constexpr (MODE == 0) {
      mbar_wait(done, 0);
    } else if constexpr (MODE == 1) {
      if (wg == 0) {
        if (lane == 0) mbar_arrive(a_bar);
        mbar_wait(b_bar, parity);
      } else {
        mbar_wait(a_bar, parity);
        if (lane == 0) mbar_arrive(b_bar);
      }
    } else if constexpr (MODE == 2) {
      named_sync(1 + wg);
      if (it + 1 < iters || wg == 0) named_arrive(2 - wg);
    } else if constexpr (MODE == 3) {
      wgmma_fence();
      wgmma_commit();
      wgmma_wait<0>();
    } else {
      wgmma_fence();
      wgmma_ss_n128(d, desc_sw128(base, 16), desc_sw128(base + 8192, 16), true);
      wgmma_commit();
      wgmma_wait<0>();
      fence_regs(d);
    }
  }
  __syncwarp();
  const long long t1 = clock64();
  if (lane == 0) cycles[blockIdx.x * 8 + threadIdx.x / 32] = t1 - t0;
  float acc = 0.0f;
#pragma unroll
  for (int i = 0; i < 64; ++i) acc += d[i];
  if (acc == 1234.5f) sink[threadIdx.x] = acc;
}
