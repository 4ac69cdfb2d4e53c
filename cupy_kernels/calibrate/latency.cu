// Latency microbenchmarks: dependent chains (each instruction consumes the previous one's result), timed with
// the SM cycle counter, and the throughput of ex2 and mma.sync chains against the number of warps per SM.
//
// Every kernel runs `iters` loop iterations of STEPS unrolled steps between two clock64 reads. latency.py
// launches each twice with different `iters` and divides the cycle difference by the step difference, so the
// fixed costs (clock reads, setup, the last result's drain, the final stores) cancel out.
// Chains cannot be folded: the ALU steps are opaque inline asm or FP recurrences that must not be reassociated
// (no fast-math), memory steps chase pointers stored in shared memory, and every chain's result feeds `keep`.
// From compute.cu: ex2_neg; from wgmma.cu: smem_desc, wgmma_m64n256k16, A_BYTES, B_BYTES. (No comment on the
// #include lines: common.load_source pastes only bare ones.)
#include "compute.cu"
#include "wgmma.cu"

constexpr int STEPS = 32;  // unrolled chain steps per loop iteration: loop overhead issues in the chain's shadow

enum AluOp : int { FFMA = 0, FMNMX = 1, EX2 = 2, F2FP = 3, SHFL = 4 };
enum SmemOp : int { LDS32 = 0, LDS128 = 1, LDSM = 2 };

__device__ __forceinline__ u32 cvta_shared(const void* p) { return static_cast<u32>(__cvta_generic_to_shared(p)); }

// One step of a chain on a 32-bit value. Values stay bounded and normal: FFMA and ex2 are contractions on (0, 1)
// (compute.cu); FMNMX alternates between x and c (max(-x, c) with c = -x0); F2FP rounds the packed pair, read
// back as a float, to bf16 again (one F2FP per step, the value stays fixed after the first); SHFL swaps lanes.
template <int OP>
__device__ __forceinline__ u32 alu_step(u32 x, float b) {
  if constexpr (OP == FFMA) {
    return __float_as_uint(fmaf(__uint_as_float(x), 0.99951171875f, b));
  } else if constexpr (OP == EX2) {
    return __float_as_uint(ex2_neg(__uint_as_float(x)));
  } else if constexpr (OP == FMNMX) {
    // asm, not fmaxf: the compiler knows fmaxf and could collapse the repeated clamp.
    float y;
    asm("max.f32 %0, %1, %2;" : "=f"(y) : "f"(-__uint_as_float(x)), "f"(-b));
    return __float_as_uint(y);
  } else if constexpr (OP == F2FP) {
    u32 y;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(y) : "f"(__uint_as_float(x)), "f"(b));
    return y;
  } else {
    static_assert(OP == SHFL);
    return __shfl_xor_sync(0xffffffffu, x, 1);
  }
}

// CHAINS independent chains per thread; the launcher picks the warps per CTA (one CTA per SM). One warp and one
// chain gives the latency; more warps or chains give the latency-hiding curve.
template <int OP, int CHAINS>
__global__ void __launch_bounds__(512, 1)
    alu_chain(const u32* __restrict__ seed, int iters, u32 key, u32* sink, u64* cycles) {
  const u64 start = sm_cycles();
  const float b = __uint_as_float(seed[256]);  // in [0.5, 1)
  u32 x[CHAINS];
  seed_chains(x, seed);
  run_chains<STEPS>(x, iters, [b](u32 v) { return alu_step<OP>(v, b); });
  u32 acc = 0;
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) acc ^= x[c];
  keep(acc, key, sink);
  record_cycles(start, cycles);
}

// mma.sync m16n8k16 bf16 with fp32 accumulators: each mma of a chain accumulates into the previous one's D,
// as the P V and Q K^T loops of FA2 do. A and B are random bf16 fragments (never zeros).
template <int CHAINS>
__global__ void __launch_bounds__(512, 1)
    mma_chain(const u32* __restrict__ seed, int iters, u32 key, u32* sink, u64* cycles) {
  const u64 start = sm_cycles();
  const int lane = threadIdx.x & 31;
  const u32 a0 = seed[lane], a1 = seed[lane + 32], a2 = seed[lane + 64], a3 = seed[lane + 96];
  const u32 b0 = seed[lane + 128], b1 = seed[lane + 160];
  float d[CHAINS][4];
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) {
#pragma unroll
    for (int j = 0; j < 4; ++j) d[c][j] = 0.0f;
  }
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int s = 0; s < STEPS; ++s) {
#pragma unroll
      for (int c = 0; c < CHAINS; ++c) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
            "{%0, %1, %2, %3};"
            : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
            : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
      }
    }
  }
  float acc = 0.0f;
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) acc += d[c][0] + d[c][1] + d[c][2] + d[c][3];
  keep(__float_as_uint(acc), key, sink);
  record_cycles(start, cycles);
}

// Shared-memory pointer chase by one warp: each load returns the shared address of the next, which is its own
// address (the chain is the latency, the location does not matter), and each lane has its own bank-conflict-free
// slot: LDS32 one word per lane; LDS128 16 bytes per lane (word 0 the address); LDSM the 32 row addresses of an
// ldmatrix.x4 (lane L gives row L, 16 bytes at 16 L), arranged so that register 0 of lane L, which holds word L
// of the first 8 x 8 matrix, is lane L's row address again.
template <int OP>
__global__ void __launch_bounds__(32, 1)
    smem_chain(const u32* __restrict__ seed, int iters, u32 key, u32* sink, u64* cycles) {
  __shared__ __align__(16) u32 buf[128];
  const u32 lane = threadIdx.x;
  const u32 base = cvta_shared(buf);
  for (u32 i = lane; i < 128; i += 32) buf[i] = seed[i];
  __syncwarp();
  const u32 stride = OP == LDS32 ? 4 : 16;
  buf[OP == LDS128 ? 4 * lane : lane] = base + stride * lane;
  __syncwarp();
  u32 addr = base + stride * lane;
  const u64 start = sm_cycles();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int s = 0; s < STEPS; ++s) {
      if constexpr (OP == LDS32) {
        asm volatile("ld.shared.u32 %0, [%0];" : "+r"(addr) : : "memory");
      } else {
        // Only register 0 carries the chain; the other three are loaded (the full instruction) and dropped.
        u32 r1, r2, r3;
        if constexpr (OP == LDS128) {
          asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%0];"
                       : "+r"(addr), "=r"(r1), "=r"(r2), "=r"(r3) : : "memory");
        } else {
          asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%0];"
                       : "+r"(addr), "=r"(r1), "=r"(r2), "=r"(r3) : : "memory");
        }
      }
    }
  }
  const u64 end = sm_cycles();
  keep(addr, key, sink);
  if (lane == 0) cycles[blockIdx.x] = end - start;
}

// D (64 x 128, fp32, 64 registers per thread) += A (64 x 16) B (16 x 128), both from shared memory; as
// wgmma_m64n256k16 (wgmma.cu) with half the N.
__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[64], u64 desc_a, u64 desc_b) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %66, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
      "}, %64, %65, p, 1, 1, 0, 0;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "n"(1));
}

// One warpgroup: per round, fence, GROUP wgmma m64nNk16 (SS, 128-byte swizzled K-major tiles as wgmma.cu) into
// one accumulator, commit, wait_group 0: the issue-to-result round trip a dependent consumer sees (FA's softmax
// waits so for S = Q K^T). GROUP = 4 (K = 64) adds what each further queued instruction costs.
template <int N, int GROUP>
__global__ void __launch_bounds__(128, 1)
    wgmma_chain(const u32* __restrict__ seed, int iters, u32 key, u32* sink, u64* cycles) {
  extern __shared__ char smem_raw[];  // B_BYTES + A_BYTES + 1 KiB for alignment
  const u32 raw = cvta_shared(smem_raw);
  const u32 base = (raw + 1023) & ~1023u;  // swizzle atoms start on 1024-byte boundaries
  u32* words = reinterpret_cast<u32*>(smem_raw + (base - raw));
  for (u32 i = threadIdx.x; i < (B_BYTES + A_BYTES) / 4; i += blockDim.x) words[i] = seed[i & 4095];
  // Written through the generic proxy, read by wgmma through the async proxy.
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const u64 desc_a = smem_desc(base + B_BYTES, 16, 1024, 1);
  const u64 desc_b = smem_desc(base, 16, 1024, 1);
  constexpr u64 step = 32 / 16;  // one K=16 slice of a 128-byte swizzled row, in 16-byte descriptor units
  float d[N / 2];
#pragma unroll
  for (int j = 0; j < N / 2; ++j) d[j] = 0.0f;
  const u64 start = sm_cycles();
  for (int it = 0; it < iters; ++it) {
    // Unrolled 8 deep, not 32: the loop's add and branch then cost under a cycle per round trip of 100+, and
    // ptxas compiles 4x fewer 128-register wgmmas (14 s for the full unroll of m64n256k16 x 4).
#pragma unroll 8
    for (int s = 0; s < STEPS; ++s) {
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
      for (int k = 0; k < GROUP; ++k) {
        if constexpr (N == 256) {
          wgmma_m64n256k16(d, desc_a + k * step, desc_b + k * step);
        } else {
          wgmma_m64n128k16(d, desc_a + k * step, desc_b + k * step);
        }
      }
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    }
  }
  const u64 end = sm_cycles();
  float acc = 0.0f;
#pragma unroll
  for (int j = 0; j < N / 2; ++j) acc += d[j];
  keep(__float_as_uint(acc), key, sink);
  if (threadIdx.x == 0) cycles[blockIdx.x] = end - start;
}

// Back-to-back bar.sync 0 of the whole CTA (4 or 8 warps, as the launcher picks): all warps arrive together, so
// a step is the barrier's own round trip. (seed, key, sink: the launch signature shared by every kernel here;
// volatile asm needs no sink.)
__global__ void __launch_bounds__(256, 1) bar_chain(const u32* __restrict__ seed, int iters, u32 key, u32* sink,
                                                    u64* cycles) {
  const u64 start = sm_cycles();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int s = 0; s < STEPS; ++s) asm volatile("bar.sync 0;" ::: "memory");
  }
  record_cycles(start, cycles);
}

// One warp: all 32 lanes arrive on an mbarrier expecting 32 arrivals, then spin on try_wait.parity until that
// phase completes: the signal -> wake-up round trip of a producer/consumer handshake within one SM. (Signature
// as bar_chain.)
__global__ void __launch_bounds__(32, 1) mbarrier_chain(const u32* __restrict__ seed, int iters, u32 key, u32* sink,
                                                        u64* cycles) {
  __shared__ __align__(8) u64 bar;
  const u32 addr = cvta_shared(&bar);
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 32;" ::"r"(addr) : "memory");
  __syncwarp();
  u32 phase = 0;
  const u64 start = sm_cycles();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int s = 0; s < STEPS; ++s) {
      asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(addr) : "memory");
      u32 done;
      do {
        asm volatile(
            "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
            : "=r"(done)
            : "r"(addr), "r"(phase)
            : "memory");
      } while (!done);
      phase ^= 1;
    }
  }
  const u64 end = sm_cycles();
  if (threadIdx.x == 0) cycles[blockIdx.x] = end - start;
}

// One warp: each lane copies 16 bytes global -> shared with cp.async.cg (L2 only, no L1), commits and waits for
// the group: issue -> data in shared memory. The 512 source bytes stay in L2 after the warm-up launch.
__global__ void __launch_bounds__(32, 1) cp_async_chain(const u32* __restrict__ seed, int iters, u32 key, u32* sink,
                                                        u64* cycles) {
  __shared__ __align__(16) u32 buf[128];
  const u32 dst = cvta_shared(buf + 4 * threadIdx.x);
  const u64 src = __cvta_generic_to_global(seed + 4 * threadIdx.x);
  const u64 start = sm_cycles();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int s = 0; s < STEPS; ++s) {
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
      asm volatile("cp.async.commit_group;" ::: "memory");
      asm volatile("cp.async.wait_group 0;" ::: "memory");
    }
  }
  const u64 end = sm_cycles();
  keep(buf[4 * threadIdx.x], key, sink);
  if (threadIdx.x == 0) cycles[blockIdx.x] = end - start;
}
