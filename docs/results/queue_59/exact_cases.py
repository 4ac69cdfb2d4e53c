from simgpu import Problem, load_arch, simulate
simulate(load_arch("h200"), "v1", Problem(1, 16, 2048, 64, pass_="bwd"), mode="exact")
simulate(load_arch("h200"), "standard", Problem(1, 16, 2048, 64, pass_="fwd_bwd"), mode="exact")
simulate(load_arch("h200"), "v2", Problem(4, 16, 2048, 64, pass_="fwd_bwd"), mode="exact")
simulate(load_arch("a100"), "v1", Problem(2, 16, 1024, 64, pass_="fwd_bwd"), mode="exact")
