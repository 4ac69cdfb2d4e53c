// Two warpgroups of one CTA each loop over our FA3 consumer's softmax and packing of a 64 x 128 tile (fwd.cu's
// softmax_tile and pack_p_tile, as v3_pieces.cu's softmax_loop), warpgroup 1 starting `delay` cycles after
// warpgroup 0, with no barrier between them (validation/probes/softmax_offset.py). Lane 0 of each warpgroup's first
// warp stamps clock64() at the start of every iteration, so the rows show whether the offset the two start with
// holds, grows or shrinks when nothing but the SM's pipes couples them. The scores are whatever `scores` holds.
#include "v3_pieces.cu"

constexpr int OFFSET_ITERS = 48;

extern "C" __global__ void __launch_bounds__(256) softmax_offset(const float* __restrict__ scores, int delay,
                                                                 long long* __restrict__ stamps,
                                                                 float* __restrict__ sink) {
  const int wg = threadIdx.x / 128;
  float s_acc[BLOCK_N / 2];
#pragma unroll
  for (int i = 0; i < BLOCK_N / 2; ++i) s_acc[i] = scores[((threadIdx.x % 128) * (BLOCK_N / 2) + i) % 4096];
  float row_max[2] = {NEG_INF, NEG_INF}, row_sum[2] = {0.0f, 0.0f}, alpha[2];
  u32 p_frag[BLOCK_N / 16][4];
  const float scale_log2 = 0.125f * LOG2E;
  long long* mine = stamps + wg * (OFFSET_ITERS + 1);
  const bool stamper = threadIdx.x % 128 == 0;
  __syncthreads();
  const long long until = clock64() + (wg == 1 ? delay : 0);
  while (clock64() < until) {
  }
  for (int it = 0; it < OFFSET_ITERS; ++it) {
    if (stamper) mine[it] = clock64();
    fence_regs(s_acc);
    softmax_tile(s_acc, row_max, row_sum, alpha, scale_log2);
    pack_p_tile(p_frag, s_acc);
    fence_regs(p_frag);
#pragma unroll
    for (int i = 0; i < BLOCK_N / 2; ++i) s_acc[i] *= 8.0f;
  }
  if (stamper) mine[OFFSET_ITERS] = clock64();
  float acc = row_sum[0] + row_sum[1] + alpha[0];
#pragma unroll
  for (int k = 0; k < BLOCK_N / 16; ++k) acc += __uint_as_float(p_frag[k][0] ^ p_frag[k][3]);
  if (acc == 1234.5f) sink[threadIdx.x] = acc;
}
