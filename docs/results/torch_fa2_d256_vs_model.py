"""PyTorch's FA2 forward at d = 256 and d = 128 under Nsight Compute (`validation/probes/torch_fa2_d256.sh`,
`validation/h200/torch_fa2_d256/counters_d{256,128}.csv`) against the v2 model of the same launch, unit by unit.

Shapes: B=4, H=2048/d, N=4096, bf16, not causal (FA2's 64 x 64 tiles with 4 warps at d = 256, two CTAs per SM;
128 x 64 at d = 128). The model: v2 with FA2's own K/V buffers (`kv_layout=split`), fast mode, on the H200 file at
the clock the counters imply (elapsed cycles over duration), the power model off. Per CTA and key tile (on one SM:
elapsed cycles x SMs / CTA tiles), measured and modelled: cycles, the tensor pipe's and the smem port's shares of
the cycles, the K/V bytes cp.async brings per SM cycle, and ldmatrix instructions per warp and key tile (the model's
from its ldmatrix bytes, 512 per instruction). Run: `python docs/results/torch_fa2_d256_vs_model.py`."""

from __future__ import annotations

import csv
from pathlib import Path

from simgpu import Problem, load_arch, simulate

COUNTERS = Path("validation/h200/torch_fa2_d256")
BATCH, SEQLEN = 4, 4096
TILES = {256: (64, 64), 128: (128, 64)}  # FA2's (block_m, block_n) on the H200
WARPS = 4
LDMATRIX_BYTES = 512  # one ldmatrix.x4 per warp


def counters(headdim: int) -> dict[str, float]:
    lines = (COUNTERS / f"counters_d{headdim}.csv").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    return {row["Metric Name"]: float(row["Metric Value"].replace(",", "")) for row in csv.DictReader(lines[start:])}


def main() -> None:
    for headdim, (block_m, block_n) in TILES.items():
        got = counters(headdim)
        heads = 2048 // headdim
        cta_tiles = BATCH * heads * (SEQLEN // block_m) * (SEQLEN // block_n)
        cycles = got["sm__cycles_elapsed.avg"]
        clock_hz = cycles / (got["gpu__time_duration.sum"] * 1e-9)
        arch = load_arch("h200", {"clock_hz": clock_hz, "power": None})
        result = simulate(arch, "v2", Problem(BATCH, heads, SEQLEN, headdim), {"kv_layout": "split"})
        per_tile = arch.sms / cta_tiles
        model_cycles = result.cycles
        kv_bytes = 2 * block_n * headdim * 2 * cta_tiles
        print(f"d={headdim} ({block_m} x {block_n} tiles, {cta_tiles} CTA tiles, clock {clock_hz / 1e6:.0f} MHz)")
        print(f"  cycles per CTA tile per SM: measured {cycles * per_tile:.0f}, model {model_cycles * per_tile:.0f} "
              f"({model_cycles / cycles - 1:+.1%})")  # fmt: skip
        tensor_pct = got["sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed"]
        print(f"  tensor pipe: measured {tensor_pct:.1f}% of cycles, model busy {100 * result.busy['tensor']:.1f}%")
        smem_pct = got["l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed"]
        print(f"  smem port: measured {smem_pct:.1f}% of cycles in wavefronts (ldmatrix and ld/st.shared), model busy "
              f"{100 * result.busy['smem']:.1f}% (with cp.async writes at their port share and the slowing beside "
              f"the tensor cores)")  # fmt: skip
        print(f"  cp.async K/V: measured {kv_bytes / arch.sms / cycles:.1f} B/clk/SM, model ingest busy "
              f"{100 * result.busy['cp_async_ingest']:.1f}% of {arch.sm.cp_async_bytes_per_cycle} B/clk")  # fmt: skip
        ldsm = got["smsp__inst_executed_op_ldsm.sum"] / (cta_tiles * WARPS)
        model_ldsm = result.smem_read_bytes / LDMATRIX_BYTES / (cta_tiles * WARPS)
        print(f"  ldmatrix per warp and key tile: measured {ldsm:.1f}, model {model_ldsm:.1f}")


if __name__ == "__main__":
    main()
