// Two warpgroups per CTA loop over our FA3 consumer's softmax and packing of a 64 x 128 tile (v3_pieces.cu's
// softmax_loop, as softmax_group<2>), warpgroup 1 starting `delay` cycles after warpgroup 0 and no barrier between
// them (as softmax_offset.cu), on every SM at once, for `iters` iterations, with no stamp inside the loop: lane 0 of
// each warp writes the loop's cycles to cycles[8 * blockIdx.x + warp] (validation/probes/softmax_turns.py).
// softmax_offset showed the pair in step from a common start and half a period apart from any delay of 64 cycles or
// more on the H200, at the same period (1325-1331 cycles an iteration); this kernel gives Nsight Compute enough
// samples of each state to say where the two states spend their time.
#include "v3_pieces.cu"

extern "C" __global__ void __launch_bounds__(256) softmax_turns(const float* __restrict__ scores, int delay, int iters,
                                                               long long* __restrict__ cycles,
                                                               float* __restrict__ sink) {
  const int wg = threadIdx.x / 128;
  __syncthreads();
  const long long until = clock64() + (wg == 1 ? delay : 0);
  while (clock64() < until) {
  }
  softmax_loop<>(scores, iters, cycles, 8 * blockIdx.x + threadIdx.x / 32, sink);
}
