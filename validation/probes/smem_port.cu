// Do copies landing in shared memory take the port that ldmatrix reads use, and do they slow the products of our
// FA2 forward? (validation/probes/smem_port.py)
//
// One CTA per SM of 8 warps. Warps 0-3 read and time themselves, by READER:
//   0: `iters` x 8 ldmatrix.x4 each (512 contiguous bytes per warp and instruction, conflict-free) from a 16 KiB
//      region;
//   1: `iters` x S = Q K^T of fwd.cu at d = 128 (gemm_abt_ss: a warp's two m16 groups, 64 keys, sharing each
//      K fragment) over a padded 128 x 128 Q tile and 64 x 128 K tile;
//   2: `iters` x O += P V of fwd.cu at d = 128 (gemm_ab_rs with AHEAD: P in registers, a 64 x 128 V tile);
//   3: nothing for `iters` SM cycles (the writers alone).
// Warps 4-7 write, until the readers are done, into a separate 64 KiB region from an L2-resident buffer, by MODE:
//   0: nothing (the readers alone);
//   1: cp.async 16-byte copies by all 128 writer threads, 8 per thread per round, one commit group in flight;
//   2: cp.async.bulk (the TMA engine) from one thread, 4 stages of 16 KiB on mbarriers;
//   3: nothing, and the 4 reader warps read the same 512 bytes at each step instead of 4 different ones;
//   4: cp.async as fwd.cu issues a K/V tile: 16 per thread per round (32 KiB), two rounds in flight.
// The writers count the bytes that landed; out[3 * cta] = reader cycles, out[3 * cta + 1] = bytes written,
// out[3 * cta + 2] = writer cycles.
// bench.cuh: u32, u64, sm_cycles(); common.cuh: the products of fwd.cu.
#include "../../cupy_kernels/calibrate/bench.cuh"
#include "../../cupy_kernels/common.cuh"

constexpr int READ_BYTES = 16 * 1024;
constexpr int WRITE_BYTES = 64 * 1024;
constexpr int BULK_CHUNK = 16 * 1024;
constexpr int PRODUCT_D = 128, PRODUCT_KEYS = 64, PRODUCT_LD = PRODUCT_D + SMEM_PAD;
constexpr int PRODUCT_BYTES = (128 + PRODUCT_KEYS) * PRODUCT_LD * 2;  // Q (or nothing) and the K or V tile

// The reader warps' work (READER 0-3 above); returns a value that depends on every result.
template <int READER, int MODE>
__device__ __forceinline__ u32 read_loop(u32 base, int iters, int warp, int lane, u64 start) {
  u32 acc = 0;
  if constexpr (READER == 0) {
    for (int it = 0; it < iters; ++it) {
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const int chunk = (it * 8 + j) * 4 + (MODE == 3 ? 0 : warp);  // 512-byte chunks of the 16 KiB region
        const u32 addr = base + (chunk * 512 + lane * 16) % READ_BYTES;
        u32 r0, r1, r2, r3;
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                     : "r"(addr));
        acc ^= r0 ^ r1 ^ r2 ^ r3;
      }
    }
  } else if constexpr (READER == 1) {
    const u32 k_base = base + 128 * PRODUCT_LD * 2;
    float sum = 0.0f;
#pragma unroll 1
    for (int it = 0; it < iters; ++it) {
      float c[2][PRODUCT_KEYS / 8][4];
      gemm_abt_ss<2, PRODUCT_KEYS, PRODUCT_D, true>(c, base, PRODUCT_LD, warp * 32, k_base, PRODUCT_LD, lane);
#pragma unroll
      for (int nt = 0; nt < PRODUCT_KEYS / 8; ++nt) sum += c[0][nt][0] + c[1][nt][3];
    }
    acc = __float_as_uint(sum);
  } else if constexpr (READER == 2) {
    u32 p[2][PRODUCT_KEYS / 16][4];
#pragma unroll
    for (int mg = 0; mg < 2; ++mg) {
#pragma unroll
      for (int kt = 0; kt < PRODUCT_KEYS / 16; ++kt) {
#pragma unroll
        for (int e = 0; e < 4; ++e) p[mg][kt][e] = 0x3c003c00u + lane + kt + e;
      }
    }
    float o[2][PRODUCT_D / 8][4];
#pragma unroll
    for (int mg = 0; mg < 2; ++mg) {
#pragma unroll
      for (int dt = 0; dt < PRODUCT_D / 8; ++dt) zero_acc(o[mg][dt]);
    }
#pragma unroll 1
    for (int it = 0; it < iters; ++it) gemm_ab_rs<2, PRODUCT_KEYS, PRODUCT_D, true, true>(o, p, base, lane);
    float sum = 0.0f;
#pragma unroll
    for (int dt = 0; dt < PRODUCT_D / 8; ++dt) sum += o[0][dt][0] + o[1][dt][3];
    acc = __float_as_uint(sum);
  } else {
    while (sm_cycles() - start < static_cast<u64>(iters)) {
    }
  }
  return acc;
}

// Wait until copy c (stage c % 4, whose mbarrier completes once per round of 4 copies) has landed.
__device__ __forceinline__ void wait_stage(u32 bars, int c) {
  const u32 bar = bars + 8 * (c % 4);
  const u32 parity = static_cast<u32>((c / 4 - 1) & 1);
  asm volatile(
      "{\n\t.reg .pred p;\n"
      "WAIT_%=:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
      "@!p bra WAIT_%=;\n\t}" ::"r"(bar),
      "r"(parity)
      : "memory");
}

// Writer thread `t` of 128: rounds of COPIES 16-byte cp.async each (COPIES x 2 KiB per round over the writers, into
// a ring of rounds filling WRITE_BYTES at `wbase`), IN_FLIGHT rounds in flight, until `done`; returns its bytes.
template <int COPIES, int IN_FLIGHT>
__device__ __forceinline__ u64 copy_rounds(const char* src, u32 src_mask, u32 wbase, int t, const volatile int* done) {
  constexpr int ROUND_BYTES = COPIES * 128 * 16;
  u64 bytes = 0;
  for (int round = 0; !*done; ++round) {
#pragma unroll
    for (int k = 0; k < COPIES; ++k) {
      const int slot = k * 128 + t;  // 16-byte slots
      const u64 offset = (static_cast<u64>(round) * COPIES * 128 + slot) * 16 + blockIdx.x * 65536ull;
      const char* from = src + (offset & src_mask);
      const u32 to = wbase + ((round % (WRITE_BYTES / ROUND_BYTES)) * ROUND_BYTES + slot * 16);
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(to), "l"(from) : "memory");
    }
    asm volatile("cp.async.commit_group;\n\tcp.async.wait_group %0;" ::"n"(IN_FLIGHT - 1) : "memory");
    bytes += COPIES * 16;
  }
  asm volatile("cp.async.wait_group 0;" ::: "memory");
  return bytes;
}

template <int READER, int MODE>
__global__ void __launch_bounds__(256, 1)
    smem_port(const char* __restrict__ src, u32 src_mask, int iters, u32* sink, u64* out) {
  constexpr int READ_REGION = READER == 1 || READER == 2 ? PRODUCT_BYTES : READ_BYTES;
  extern __shared__ __align__(128) char smem[];  // READ_REGION + WRITE_BYTES
  __shared__ volatile int done;
  __shared__ __align__(8) u64 full[4];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const u32 base = static_cast<u32>(__cvta_generic_to_shared(smem));
  const u32 bars = static_cast<u32>(__cvta_generic_to_shared(full));
  if (threadIdx.x == 0) {
    done = 0;
    for (int s = 0; s < 4; ++s) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bars + 8 * s));
    asm volatile("fence.mbarrier_init.release.cluster;\n\tfence.proxy.async.shared::cta;" ::: "memory");
  }
  // Small bf16 values (about 1 to 2) everywhere the readers look.
  for (int i = threadIdx.x; i < READ_REGION / 4; i += blockDim.x) {
    reinterpret_cast<u32*>(smem)[i] = 0x3c003c00u + (i * 2654435761u >> 23);
  }
  __syncthreads();
  const u64 start = sm_cycles();
  if (warp < 4) {
    const u32 acc = read_loop<READER, MODE>(base, iters, warp, lane, start);
    if (acc == 0x9E3779B9u) *sink = acc;
    asm volatile("bar.sync 1, 128;");
    if (threadIdx.x == 0) {
      out[3 * blockIdx.x] = sm_cycles() - start;
      done = 1;
    }
    return;
  }
  u64 bytes = 0;
  const u32 wbase = base + READ_REGION;
  const int t = threadIdx.x - 128;
  if constexpr (MODE == 1) {
    bytes = copy_rounds<8, 1>(src, src_mask, wbase, t, &done);
  } else if constexpr (MODE == 4) {
    bytes = copy_rounds<16, 2>(src, src_mask, wbase, t, &done);
  } else if constexpr (MODE == 2) {
    if (t == 0) {
      auto issue = [&](int c) {
        const u32 bar = bars + 8 * (c % 4);
        const char* from = src + (((static_cast<u64>(c) * gridDim.x + blockIdx.x) * BULK_CHUNK) & src_mask);
        asm volatile(
            "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n\t"
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%2], [%3], %1, [%0];" ::"r"(bar),
            "n"(BULK_CHUNK), "r"(wbase + (c % 4) * BULK_CHUNK), "l"(from)
            : "memory");
      };
      for (int c = 0; c < 4; ++c) issue(c);
      int c = 4;
      for (; !done; ++c) {
        wait_stage(bars, c);
        bytes += BULK_CHUNK;
        issue(c);
      }
      for (int k = c; k < c + 4; ++k) {  // drain the copies in flight before the CTA exits
        wait_stage(bars, k);
      }
    }
  }
  asm volatile("bar.sync 2, 128;");
  if (t == 0) {
    out[3 * blockIdx.x + 2] = sm_cycles() - start;
  }
  // bytes: sum over the writer threads (MODE 1: each thread counts its own; MODE 2: thread 0 counts all).
  atomicAdd(reinterpret_cast<unsigned long long*>(&out[3 * blockIdx.x + 1]), bytes);
}
