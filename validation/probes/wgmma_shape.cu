// wgmma throughput by instruction shape and by how the issuing warpgroup waits (validation/probes/wgmma_shape.py).
//
// The arch files' wgmma rate (4096 FLOP/clk/SM) was measured with m64n256k16, both operands in shared memory, one
// commit group of 4 queued behind the running one. Our v3 kernel issues m64n128k16 SS (S = Q K^T) and m64n64k16
// or m64n128k16 RS (O += P V, P from registers) and waits for each group before its softmax. Each kernel here runs
// one of those patterns back to back from 1 or 2 warpgroups (one CTA per SM):
//   SHAPE 0..4: GROUP instructions of one shape (SS n64, SS n128, SS n256, RS n64, RS n128), committed as one
//               group, then wgmma.wait_group WAIT (1: one group queues behind the running one; 0: the warpgroup
//               waits for its group, as the v3 kernel does before its softmax);
//   SHAPE 5, 6: the v3 kernel's pair at d = 64 / 128: S (4 / 8 x SS n128), then P V (8 x RS n64 / n128), one group.
//   SHAPE 7..9, controls of the pairs: 7 = 4 x SS n128 into one accumulator, then 4 x SS n128 into another;
//               8 = 8 x RS n64 into one accumulator, then 8 into another; 9 = SHAPE 5 with every S instruction
//               accumulating (SHAPE 5 overwrites S at its first k step, as the kernel does).
// Operands: 128-byte swizzled tiles as in cupy_kernels/v3/fwd.cu (A and the SS B K-major, the RS B MN-major like
// V), small random bf16 values; RS A fragments are random registers. Products are not checked; the accumulators
// feed `keep` so nothing is dead.
#include "../../cupy_kernels/calibrate/bench.cuh"
#include "../../cupy_kernels/calibrate/wgmma.cu"
#include "../../cupy_kernels/v3/wgmma_ops.cuh"

constexpr u32 TILE_ROW_BYTES = 128;  // one swizzled row: 64 bf16
constexpr u32 B_REGION_BYTES = 32768;  // 256 rows (SS, K-major) or 128 keys x 128 columns (RS, MN-major)
constexpr u32 MN_PANEL_BYTES = 128 * TILE_ROW_BYTES;  // the RS B tile's 64-column panels: 128 keys each

__device__ __forceinline__ u64 sw128(u32 addr, u32 lbo_bytes) { return smem_desc(addr, lbo_bytes, 1024, 1); }

// D (64 x 64, fp32) += A (64 x 16) B (16 x 64), both from shared memory, K-major.
__device__ __forceinline__ void wgmma_ss_n64(float (&d)[32], u64 desc_a, u64 desc_b) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %34, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
      "}, %32, %33, p, 1, 1, 0, 0;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(desc_a), "l"(desc_b), "n"(1));
}

template <int WAIT>
__device__ __forceinline__ void wait_group() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(WAIT) : "memory");
}

template <int N>
struct Acc {
  float d[N / 2];
};

template <int SHAPE, int GROUP, int WAIT, int WARPGROUPS>
__global__ void __launch_bounds__(WARPGROUPS * 128, 1) wgmma_shape(int iters, u32* sink, u64* cycles) {
  extern __shared__ char smem_raw[];  // 1 KiB alignment + B region + WARPGROUPS A tiles (64 x 64)
  const u32 raw = static_cast<u32>(__cvta_generic_to_shared(smem_raw));
  const u32 base = (raw + 1023) & ~1023u;
  u32* words = reinterpret_cast<u32*>(smem_raw + (base - raw));
  for (u32 i = threadIdx.x; i < (B_REGION_BYTES + WARPGROUPS * A_BYTES) / 4; i += blockDim.x)
    words[i] = 0x3c003c00u + ((i * 2654435761u) & 0x01ff01ffu);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();

  const u32 b_addr = base;
  const u32 a_addr = base + B_REGION_BYTES + (threadIdx.x / 128) * A_BYTES;
  u32 frag[8][4];  // RS A fragments: random-looking bf16 pairs, fixed across the loop
#pragma unroll
  for (int k = 0; k < 8; ++k)
#pragma unroll
    for (int e = 0; e < 4; ++e) frag[k][e] = 0x3c003c00u + ((threadIdx.x * 31u + k * 7u + e) & 0x00ff00ffu);
  Acc<64> n64{};     // SHAPE 0, 3, 5 (P V at d = 64)
  Acc<128> n128{};   // SHAPE 1, 4, 5, 6 (S)
  Acc<256> n256{};   // SHAPE 2
  Acc<128> o128{};   // SHAPE 6 (P V at d = 128), 7
  Acc<64> m64{};     // SHAPE 8

  const u64 start = sm_cycles();
  for (int it = 0; it < iters; ++it) {
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    if constexpr (SHAPE <= 2) {
#pragma unroll
      for (int k = 0; k < GROUP; ++k) {
        const u64 a = sw128(a_addr + (k % 4) * 32, 16);
        const u64 b = sw128(b_addr + (k % 4) * 32, 16);
        if constexpr (SHAPE == 0) wgmma_ss_n64(n64.d, a, b);
        if constexpr (SHAPE == 1) wgmma_ss_n128(n128.d, a, b, true);
        if constexpr (SHAPE == 2) wgmma_m64n256k16(n256.d, a, b);
      }
    } else if constexpr (SHAPE <= 4) {
#pragma unroll
      for (int k = 0; k < GROUP; ++k) {
        const u64 b = sw128(b_addr + (k % 8) * 16 * TILE_ROW_BYTES, MN_PANEL_BYTES);
        if constexpr (SHAPE == 3) wgmma_rs_n64(n64.d, frag[k % 8], b);
        if constexpr (SHAPE == 4) wgmma_rs_n128(n128.d, frag[k % 8], b);
      }
    } else if constexpr (SHAPE == 7) {
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        wgmma_ss_n128(k < 4 ? n128.d : o128.d, sw128(a_addr + (k % 4) * 32, 16), sw128(b_addr + (k % 4) * 32, 16),
                      true);
      }
    } else if constexpr (SHAPE == 8) {
#pragma unroll
      for (int k = 0; k < 16; ++k) {
        wgmma_rs_n64(k < 8 ? n64.d : m64.d, frag[k % 8], sw128(b_addr + (k % 8) * 16 * TILE_ROW_BYTES, MN_PANEL_BYTES));
      }
    } else {
      constexpr int S_STEPS = SHAPE == 6 ? 8 : 4;
#pragma unroll
      for (int k = 0; k < S_STEPS; ++k) {
        wgmma_ss_n128(n128.d, sw128(a_addr + (k % 4) * 32, 16), sw128(b_addr + (k % 4) * 32, 16), SHAPE == 9 || k > 0);
      }
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        const u64 b = sw128(b_addr + k * 16 * TILE_ROW_BYTES, MN_PANEL_BYTES);
        if constexpr (SHAPE == 5 || SHAPE == 9) wgmma_rs_n64(n64.d, frag[k], b);
        if constexpr (SHAPE == 6) wgmma_rs_n128(o128.d, frag[k], b);
      }
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    wait_group<WAIT>();
  }
  wait_group<0>();
  float acc = 0.0f;
  if constexpr (SHAPE == 0 || SHAPE == 3 || SHAPE == 5 || SHAPE == 8 || SHAPE == 9)
#pragma unroll
    for (int j = 0; j < 32; ++j) acc += n64.d[j];
  if constexpr (SHAPE == 8)
#pragma unroll
    for (int j = 0; j < 32; ++j) acc += m64.d[j];
  if constexpr (SHAPE == 1 || SHAPE == 4 || SHAPE == 5 || SHAPE == 6 || SHAPE == 7 || SHAPE == 9)
#pragma unroll
    for (int j = 0; j < 64; ++j) acc += n128.d[j];
  if constexpr (SHAPE == 2)
#pragma unroll
    for (int j = 0; j < 128; ++j) acc += n256.d[j];
  if constexpr (SHAPE == 6 || SHAPE == 7)
#pragma unroll
    for (int j = 0; j < 64; ++j) acc += o128.d[j];
  keep(__float_as_uint(acc), 0x7fc00001u, sink);
  record_cycles(start, cycles);
}
