from simgpu import Problem, simulate

simulate("h200", "v1", Problem(4, 16, 4096, 64, pass_="fwd"), mode="exact")
