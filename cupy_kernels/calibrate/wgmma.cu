// wgmma throughput of `simgpu calibrate`: back-to-back `wgmma.mma_async.m64n256k16.f32.bf16.bf16` (sm_90a) with
// both operands in shared memory (SS) and the fp32 accumulators in registers, as in a GEMM main loop without
// its loads. One CTA per SM (the runner asks for more dynamic shared memory than two CTAs could get) with 1 or 2
// consumer warpgroups; each warpgroup has its own A tile (64 x 64) and all share one B tile (256 x 64), as in a
// cooperative GEMM with a 128 x 256 CTA tile. The operand values are random bf16 (never zeros); the products
// are not checked (a throughput benchmark), but every instruction is legal and the accumulators feed `keep`.
//
// Shared-memory layouts (K-major, bf16), described to wgmma by 64-bit matrix descriptors (PTX ISA, "Matrix
// Descriptor Format"): bits 0-13 start address >> 4, bits 16-29 leading-dimension byte offset (LBO) >> 4,
// bits 32-45 stride-dimension byte offset (SBO) >> 4, bits 49-51 base offset, bits 62-63 swizzle mode.
// - SWIZZLE128 (what CUTLASS and FA3 use for bf16 K-major tiles): rows of 128 bytes (64 elements of K), groups
//   of 8 rows = 1024-byte swizzle atoms placed back to back, so SBO = 1024; LBO is unused for a swizzled K-major
//   operand whose K extent per instruction (16 elements = 32 bytes) lies inside one 128-byte row (set to 16 B);
//   tiles are 1024-byte aligned so the base offset is 0. The k-th K=16 step starts 32 bytes further.
// - No swizzle ("interleave"): 8 x 8 core matrices of 128 contiguous bytes; per K=16 step, an A block of 2 x 8
//   core matrices (2 KiB) and a B block of 2 x 32 (8 KiB); LBO = 128 B between the two core matrices along K,
//   SBO = 256 B between core matrices along M/N. The k-th step starts one block further.
#include "bench.cuh"

constexpr int K_STEPS = 4;                    // K = 64 per iteration: one 128-byte swizzle row of bf16
constexpr u32 A_BYTES = 64 * 64 * 2;          // 8 KiB: one warpgroup's A tile, 64 (M) x 64 (K)
constexpr u32 B_BYTES = 256 * 64 * 2;         // 32 KiB: the shared B tile, 256 (N) x 64 (K)
constexpr u64 FLOP_PER_WGMMA = 2ull * 64 * 256 * 16;

__device__ __forceinline__ u64 smem_desc(u32 addr, u32 lbo_bytes, u32 sbo_bytes, u32 swizzle_mode) {
  return static_cast<u64>((addr & 0x3FFFF) >> 4) | (static_cast<u64>(lbo_bytes >> 4) << 16) |
         (static_cast<u64>(sbo_bytes >> 4) << 32) | (static_cast<u64>(swizzle_mode) << 62);
}

// D (64 x 256, fp32, 128 registers per thread) += A (64 x 16) B (16 x 256); scale-d = 1 (accumulate),
// no negation (imm-scale 1), both operands K-major (imm-trans 0).
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], u64 desc_a, u64 desc_b) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %130, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
      "}, %128, %129, p, 1, 1, 0, 0;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
        "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
        "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(desc_a), "l"(desc_b), "n"(1));
}

template <int WARPGROUPS, bool SWIZZLE128>
__global__ void __launch_bounds__(WARPGROUPS * 128, 1)
    wgmma_rate(const u32* __restrict__ seed, int iters, u32 key, u32* sink, u64* cycles) {
  extern __shared__ char smem_raw[];  // B_BYTES + WARPGROUPS x A_BYTES + 1 KiB for alignment, or more
  const u32 raw = static_cast<u32>(__cvta_generic_to_shared(smem_raw));
  const u32 base = (raw + 1023) & ~1023u;  // swizzle atoms must start on 1024-byte boundaries
  u32* words = reinterpret_cast<u32*>(smem_raw + (base - raw));
  for (u32 i = threadIdx.x; i < (B_BYTES + WARPGROUPS * A_BYTES) / 4; i += blockDim.x) words[i] = seed[i & 4095];
  // The tiles were written through the generic proxy; wgmma reads them through the async proxy.
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();

  const u64 start = sm_cycles();
  const u32 a_addr = base + B_BYTES + (threadIdx.x / 128) * A_BYTES;
  const u64 desc_a = SWIZZLE128 ? smem_desc(a_addr, 16, 1024, 1) : smem_desc(a_addr, 128, 256, 0);
  const u64 desc_b = SWIZZLE128 ? smem_desc(base, 16, 1024, 1) : smem_desc(base, 128, 256, 0);
  // Start-address step per K=16 slice, in the descriptor's 16-byte units (see the layouts above).
  constexpr u64 step_a = SWIZZLE128 ? 32 / 16 : (A_BYTES / K_STEPS) / 16;
  constexpr u64 step_b = SWIZZLE128 ? 32 / 16 : (B_BYTES / K_STEPS) / 16;

  float d[128];
#pragma unroll
  for (int j = 0; j < 128; ++j) d[j] = 0.0f;
  for (int it = 0; it < iters; ++it) {
    // As a GEMM main loop: fence, K_STEPS wgmmas into the same accumulators (ordered by the hardware), commit
    // them as one group, and wait only for the previous group, so one group always queues behind the running one.
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int k = 0; k < K_STEPS; ++k) wgmma_m64n256k16(d, desc_a + k * step_a, desc_b + k * step_b);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  float acc = 0.0f;
#pragma unroll
  for (int j = 0; j < 128; ++j) acc += d[j];
  keep(__float_as_uint(acc), key, sink);
  record_cycles(start, cycles);
}
