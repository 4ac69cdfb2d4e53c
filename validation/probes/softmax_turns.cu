// Two warpgroups per CTA loop over our FA3 consumer's softmax and packing of a 64 x 128 tile, as softmax_offset.cu's
// softmax_offset, warpgroup 1 starting `delay` cycles after warpgroup 0 and no barrier between them, but on every
// SM at once, for `iters` iterations, with no stamp inside the loop: lane 0 of each warpgroup's first warp writes
// the loop's cycles to cycles[2 * blockIdx.x + warpgroup] (validation/probes/softmax_turns.py). softmax_offset showed
// the pair in step from a common start and half a period apart from any delay of 64 cycles or more, at the same
// period (1325-1331 cycles an iteration); this kernel gives Nsight Compute enough samples of each state to say where
// the two states spend their time.
#include "v3_pieces.cu"

extern "C" __global__ void __launch_bounds__(256) softmax_turns(const float* __restrict__ scores, int delay, int iters,
                                                               long long* __restrict__ cycles,
                                                               float* __restrict__ sink) {
  const int wg = threadIdx.x / 128;
  float s_acc[BLOCK_N / 2];
#pragma unroll
  for (int i = 0; i < BLOCK_N / 2; ++i) s_acc[i] = scores[((threadIdx.x % 128) * (BLOCK_N / 2) + i) % 4096];
  float row_max[2] = {NEG_INF, NEG_INF}, row_sum[2] = {0.0f, 0.0f}, alpha[2];
  u32 p_frag[BLOCK_N / 16][4];
  const float scale_log2 = 0.125f * LOG2E;
  __syncthreads();
  const long long until = clock64() + (wg == 1 ? delay : 0);
  while (clock64() < until) {
  }
  const long long start = clock64();
  for (int it = 0; it < iters; ++it) {
    fence_regs(s_acc);
    softmax_tile(s_acc, row_max, row_sum, alpha, scale_log2);
    pack_p_tile(p_frag, s_acc);
    fence_regs(p_frag);
#pragma unroll
    for (int i = 0; i < BLOCK_N / 2; ++i) s_acc[i] *= 8.0f;
  }
  const long long end = clock64();
  if (threadIdx.x % 128 == 0) cycles[2 * blockIdx.x + wg] = end - start;
  float acc = row_sum[0] + row_sum[1] + alpha[0];
#pragma unroll
  for (int k = 0; k < BLOCK_N / 16; ++k) acc += __uint_as_float(p_frag[k][0] ^ p_frag[k][3]);
  if (acc == 1234.5f) sink[threadIdx.x] = acc;
}
