"""Fast and exact mode's cycles (whole run, per kernel) and CTAs per SM of standard attention's forward on the A100
cut to 8 SMs at 2 x 2 heads x 1k, d = 64 (`experiments.fast_vs_exact`'s first shape): where the scheduler hold puts
fast mode 10.6% under exact mode. The model variant is whatever the environment selects (the patch here,
SIMGPU_NATIVE=0). `python docs/results/hold_38/fast_exact_a100_standard.py`
"""

from simgpu import Problem, load_arch, simulate

arch = load_arch("a100", {"sms": 8})
problem = Problem(2, 2, 1024, 64)
for mode in ("fast", "exact"):
    result = simulate(arch, "standard", problem, mode=mode)
    print(mode, round(result.cycles), [round(c) for c in result.kernel_cycles], result.ctas_per_sm)
