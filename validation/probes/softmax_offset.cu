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

// As softmax_offset, with four stamps per iteration (`softmax_offset.py --passes`): its start, the end of the row-max
// pass, the end of the exp pass, the end of P's packing and the FMUL that makes the next S. Each stamp follows a
// register fence on the pass's results, so it is read once the pass's last instruction has issued. `part1` chooses
// what warpgroup 1 loops over: 0 the whole softmax, as warpgroup 0; 1 only the exp pass and the packing (at the row
// maxes of its first iteration); 2 only the row-max pass; 3 nothing (warpgroup 0 alone). What stretches which pass
// shows in the stamps' gaps. Every thread reads the clock at each stamp (the stamping thread stores it): a stamp is
// read once its pass's last instruction has issued, so a pass's tail latency counts in the next pass. The stamps
// cost the loop: warpgroup 0 alone takes ~1107 cycles per iteration here, 771 without them (v3_softmax_groups.py).
constexpr int PASS_STAMPS = 4;

extern "C" __global__ void __launch_bounds__(256) softmax_offset_passes(const float* __restrict__ scores, int delay,
                                                                        int part1, long long* __restrict__ stamps,
                                                                        float* __restrict__ sink) {
  const int wg = threadIdx.x / 128;
  const int part = wg == 0 ? 0 : part1;
  float s_acc[BLOCK_N / 2];
#pragma unroll
  for (int i = 0; i < BLOCK_N / 2; ++i) s_acc[i] = scores[((threadIdx.x % 128) * (BLOCK_N / 2) + i) % 4096];
  float row_max[2] = {NEG_INF, NEG_INF}, row_sum[2] = {0.0f, 0.0f}, alpha[2], max_scaled[2];
  u32 p_frag[BLOCK_N / 16][4] = {};
  const float scale_log2 = 0.125f * LOG2E;
  long long* mine = stamps + wg * (OFFSET_ITERS * PASS_STAMPS + 1);
  const bool stamper = threadIdx.x % 128 == 0;
  __syncthreads();
  if (part == 3) return;
  const long long until = clock64() + (wg == 1 ? delay : 0);
  while (clock64() < until) {
  }
  for (int it = 0; it < OFFSET_ITERS; ++it) {
    if (stamper) mine[PASS_STAMPS * it] = clock64();
    fence_regs(s_acc);
    if (part != 1 || it == 0) row_max_pass(s_acc, row_max, row_sum, alpha, max_scaled, scale_log2);
    fence_regs(max_scaled);
    const long long max_done = clock64();
    if (stamper) mine[PASS_STAMPS * it + 1] = max_done;
    if (part != 2) exp_pass(s_acc, row_sum, max_scaled, scale_log2);
    fence_regs(s_acc);
    const long long exp_done = clock64();
    if (stamper) mine[PASS_STAMPS * it + 2] = exp_done;
    if (part != 2) {
      pack_p_tile(p_frag, s_acc);
      fence_regs(p_frag);
#pragma unroll
      for (int i = 0; i < BLOCK_N / 2; ++i) s_acc[i] *= 8.0f;
    }
    const long long pack_done = clock64();
    if (stamper) mine[PASS_STAMPS * it + 3] = pack_done;
  }
  if (stamper) mine[OFFSET_ITERS * PASS_STAMPS] = clock64();
  float acc = row_sum[0] + row_sum[1] + alpha[0] + max_scaled[1];
#pragma unroll
  for (int k = 0; k < BLOCK_N / 16; ++k) acc += __uint_as_float(p_frag[k][0] ^ p_frag[k][3]);
  if (acc == 1234.5f) sink[threadIdx.x] = acc;
}
