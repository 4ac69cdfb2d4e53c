"""The A100's 8192^3 bf16 GEMM in fast mode under three contention settings: the arch file as it is, the tensor
cores beside ldmatrix at the H200's mma.sync rate (0.651, the file before the sixty-fifth session), and no
contention at all. Run at a commit before the session's schedule change and after it, to show what bounded the
GEMM: `python docs/results/session_65/a100_gemm_states.py` (`SIMGPU_NATIVE=0` where the checkout has no build)."""

from __future__ import annotations

from simgpu import GemmProblem, load_arch, simulate

SETTINGS: dict[str, dict[str, object]] = {
    "arch file": {},
    "tensor beside ldmatrix 0.651": {"contention.tensor_rate_while_smem_busy": 0.651},
    "no contention": {"contention": None},
}

for label, overrides in SETTINGS.items():
    result = simulate(load_arch("a100", overrides), "gemm", GemmProblem(8192, 8192, 8192, "bf16"))
    busy = ", ".join(f"{unit} {share:.3f}" for unit, share in result.busy.items() if share > 0.01)
    print(f"{label:30s} {result.tflops:6.1f} TFLOP/s ({result.tflops / 311.87:.1%} of peak); busy: {busy}")
