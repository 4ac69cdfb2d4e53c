// How long one SM's TMA copy from HBM takes while the other SMs stream copies of their own
// (validation/probes/loaded_latency.py). One CTA per SM (the shared-memory footprint), one thread each. CTA 0, the
// prober, waits `settle` cycles, then copies `probes` 16 KiB boxes (64 bf16 columns x 128 rows, 128-byte swizzle,
// as our FA3 kernel's) from HBM one after the other, each from a head of its own (the map is used from the second
// on), and records each copy's cycles from issue to data. Every other CTA streams for `stream_cycles`: `inflight`
// boxes on one mbarrier, waited for, again and again, from its own heads (`stream_heads` apart: HBM when the
// region is larger than L2) or from heads 1..8 shared by all (L2 after the first pass); it records boxes copied
// and cycles. `inflight` 0: the other CTAs exit at once (an idle chip); CTAs past `streamers` exit at once too. Helpers are fwd.cu's.
#include "../../cupy_kernels/v3/fwd.cu"

constexpr u32 LOADED_BOX_BYTES = 128 * 128;
constexpr int MAX_PROBES = 32;

extern "C" __global__ void __launch_bounds__(32) loaded_latency(const unsigned char* __restrict__ tensor_map,
                                                                int inflight, int streamers, int shared_heads,
                                                                int stream_heads,
                                                                long long stream_cycles, long long settle,
                                                                int probes, long long* __restrict__ out) {
  extern __shared__ unsigned char smem_raw[];
  __shared__ __align__(8) u64 barrier;
  const u32 bar = smem_addr(&barrier);
  const u32 dst = swizzle_aligned(smem_addr(smem_raw));
  if (threadIdx.x != 0) return;
  mbar_init(bar, 1);
  mbar_init_fence();
  const u64 tm = reinterpret_cast<u64>(tensor_map);
  long long* row = out + blockIdx.x * (MAX_PROBES + 2);
  const long long start = clock64();
  if (blockIdx.x == 0) {
    while (clock64() - start < settle) {
    }
    for (int p = 0; p < probes; ++p) {
      mbar_expect_tx(bar, LOADED_BOX_BYTES);
      const long long t0 = clock64();
      // A head past every streamer's, read once in this run.
      tma_load_3d(dst, tm, bar, 0, 0, 1 + gridDim.x * stream_heads + p);
      mbar_wait(bar, static_cast<u32>(p & 1));
      row[p] = clock64() - t0;
    }
    return;
  }
  if (inflight == 0 || blockIdx.x > streamers) return;
  long long boxes = 0;
  u32 phase = 0;
  int next = 0;
  while (clock64() - start < stream_cycles) {
    mbar_expect_tx(bar, inflight * LOADED_BOX_BYTES);
    for (int b = 0; b < inflight; ++b) {
      const int head = shared_heads ? 1 + (next % 8) : 1 + blockIdx.x * stream_heads + (next % stream_heads);
      const int box_row = shared_heads ? ((next / 8) % 4) * 128 : ((next / stream_heads) % 4) * 128;
      tma_load_3d(dst + b * LOADED_BOX_BYTES, tm, bar, 0, box_row, head);
      ++next;
    }
    mbar_wait(bar, phase);
    phase ^= 1;
    boxes += inflight;
  }
  row[MAX_PROBES] = boxes;
  row[MAX_PROBES + 1] = clock64() - start;
}
