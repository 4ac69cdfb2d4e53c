// Two latencies the simulator's arch files had no measurement for (validation/probes/cta_launch.py):
//
// turnaround: every CTA spins `spin` SM cycles and logs (SM id, clock64 at entry, clock64 when all its threads are
// done). clock64 is the SM's own counter, so only CTAs of one SM are compared. With many waves of such CTAs, the
// cycles from one CTA's end to the start of the CTA that takes its slot are the cost of retiring and launching a
// CTA (the simulator's `sm.cta_launch_cycles`).
// chase: one thread follows a random cyclic permutation of `count` 128-byte-spaced pointers: `steps` dependent
// loads, each a miss in L1 (ld.global.cg), served by L2 or HBM depending on the working set.
#include "../../cupy_kernels/calibrate/bench.cuh"  // u32, u64, sm_cycles()

extern "C" __global__ void turnaround(u64 spin, u64* log) {
  const u64 c0 = sm_cycles();
  while (sm_cycles() - c0 < spin) {
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    u32 smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    log[3 * blockIdx.x] = smid;
    log[3 * blockIdx.x + 1] = c0;
    log[3 * blockIdx.x + 2] = sm_cycles();
  }
}

extern "C" __global__ void chase(const u32* __restrict__ next, int steps, u32* sink, u64* cycles) {
  u32 i = 0;
  const u64 c0 = sm_cycles();
  for (int s = 0; s < steps; ++s) asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(i) : "l"(next + i) : "memory");
  cycles[0] = sm_cycles() - c0;
  *sink = i;
}
