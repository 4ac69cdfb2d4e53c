// The dQ accumulation of our FA2 backward kernel alone (validation/probes/dq_atomics.py): per Q block, the warps of
// a CTA add a BLOCK_M x D fp32 tile into global memory with the addresses, instruction order and task split of
// `cupy_kernels/v2/bwd.cu` (tasks of 16 query rows x 32 columns round-robin over the 8 warps; per task and thread
// 2 rows x 4 column tiles x 2 scalar atomicAdds, which compile to RED.E.ADD.F32), and nothing else but an optional
// spin of `gap_cycles` per tile standing in for the tile's other work.
//
// `group` CTAs share one accumulator region and step through its tiles in the same order, as the K/V blocks of one
// head do in FA2's backward (all add to dQ_i at about the same time); group = 1 gives every CTA its own region.
// MODE 0: bwd.cu's scalar atomics. MODE 1 replaces each pair of scalar atomics on adjacent columns by one
// `red.global.add.v2.f32` (sm_90): the same bytes in half the instructions, to tell a per-instruction cost from a
// per-byte one. MODE 2 writes plain 4-byte stores in the pattern of the forward kernels' epilogues (a bf16 pair per
// thread, 16 contiguous bytes per row and quad: `st.global.b32`), one per (row, column tile), into a bf16 tile.
// MODE 3 adds the same elements with the same number of scalar REDs in FA2's own order (`flash_bwd_kernel.h`, its
// accumulator kept in thread-fragment order so that the adds coalesce): thread t of the CTA's 8 x 32 grid adds
// element (8 v + t / 32, 32 w + t % 32) for each of its steps (v, w), so each warp instruction adds 32 consecutive
// floats of one row (128 bytes, 4 sectors) where MODE 0's touches 8 rows (8 sectors). MODE 4 is MODE 3 with each
// warp instruction covering 4 rows of 8 consecutive floats (4 sectors, as MODE 3, in 4 rows, as neither).
//
// Records per CTA the cycles of the whole loop, and per warp the cycles its atomics of each tile took to issue
// (the warp's own stall: the hold the model must give a role while its warps issue REDs).
#include "../../cupy_kernels/common.cuh"

__device__ __forceinline__ long long dq_clock() {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
  return t;
}

template <int D, int MODE>
__global__ void __launch_bounds__(256) dq_atomics(float* __restrict__ dq, int tiles, int group, int gap_cycles,
                                                  long long* __restrict__ cta_cycles,
                                                  long long* __restrict__ warp_issue_cycles) {
  constexpr int BLOCK_M = 64;
  constexpr int WARPS = 8;
  constexpr int ROW_GROUPS = BLOCK_M / 16;
  constexpr int TASKS = ROW_GROUPS * (D / 32);
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int g = lane / 4;
  const int t = lane % 4;
  float* region = dq + static_cast<long long>(blockIdx.x / group) * tiles * BLOCK_M * D;
  // A value the compiler cannot fold: every atomic adds a distinct small number.
  const float base = 1e-3f * static_cast<float>(blockIdx.x % 7 + 1);
  long long issue_sum = 0;
  __syncthreads();
  const long long start = dq_clock();
  for (int i = 0; i < tiles; ++i) {
    if (gap_cycles > 0) {
      const long long until = dq_clock() + gap_cycles;
      while (dq_clock() < until) {
      }
    }
    float* tile = region + static_cast<long long>(i) * BLOCK_M * D;
    const long long t0 = dq_clock();
    if constexpr (MODE >= 3) {
      constexpr int ROWS = MODE == 3 ? 1 : 4;  // rows one warp instruction covers
      constexpr int WIDTH = 32 / ROWS;          // consecutive floats per row
#pragma unroll 4
      for (int step = 0; step < BLOCK_M * D / (WARPS * 32); ++step) {
        const int row = (step / (D / WIDTH)) * WARPS * ROWS + warp * ROWS + lane / WIDTH;
        const int col = (step % (D / WIDTH)) * WIDTH + lane % WIDTH;
        atomicAdd(tile + row * D + col, base * static_cast<float>(i + step + 1));
      }
    }
    for (int task = warp; MODE < 3 && task < TASKS; task += WARPS) {
      const int m0 = (task % ROW_GROUPS) * 16;
      const int n0 = (task / ROW_GROUPS) * 32;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = m0 + g + h * 8;
#pragma unroll
        for (int nt = 0; nt < 4; ++nt) {
          float* dst = tile + row * D + n0 + nt * 8 + 2 * t;
          const float x = base * static_cast<float>(i + nt + 1);
          if constexpr (MODE == 1) {
            asm volatile("red.global.add.v2.f32 [%0], {%1, %2};" ::"l"(dst), "f"(x), "f"(x + base) : "memory");
          } else if constexpr (MODE == 2) {
            // The tile as bf16: row * D + column elements of 2 bytes, i.e. half the fp32 tile's offsets.
            u32* out = reinterpret_cast<u32*>(reinterpret_cast<u16*>(tile) + row * D + n0 + nt * 8 + 2 * t);
            asm volatile("st.global.b32 [%0], %1;" ::"l"(out), "r"(__float_as_uint(x)) : "memory");
          } else {
            atomicAdd(dst, x);
            atomicAdd(dst + 1, x + base);
          }
        }
      }
    }
    issue_sum += dq_clock() - t0;
    __syncthreads();  // bwd.cu's next Q block starts with a barrier as well
  }
  const long long end = dq_clock();
  if (threadIdx.x == 0) cta_cycles[blockIdx.x] = end - start;
  if (lane == 0) warp_issue_cycles[blockIdx.x * WARPS + warp] = issue_sum;
}
