"""GEMM on every arch: invariants (roofline, compulsory bytes) and the structure of each generation's kernel."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simgpu import GemmProblem, load_arch, roofline_cycles, simulate
from simgpu.api import schedule
from simgpu.errors import OptionError

ARCHS = ("a100", "h100", "h200", "b200")


@settings(max_examples=12, deadline=None)
@given(
    arch=st.sampled_from(ARCHS),
    m=st.integers(1, 700),
    n=st.integers(1, 700),
    k=st.integers(1, 700),
)
def test_cycles_never_below_roofline_and_bytes_never_below_compulsory(arch: str, m: int, n: int, k: int) -> None:
    problem = GemmProblem(m, n, k)
    result = simulate(arch, "gemm", problem)
    assert result.cycles >= roofline_cycles(load_arch(arch), problem, result.clock_hz)
    assert result.hbm_read_bytes >= problem.compulsory_read_bytes
    assert result.hbm_write_bytes >= problem.compulsory_write_bytes


@pytest.mark.parametrize(
    ("arch", "kernel", "roles", "persistent"),
    [
        ("a100", "gemm_mma_sync", ["mainloop"], False),
        ("h100", "gemm_wgmma", ["producer", "consumer0", "consumer1"], True),
        ("b200", "gemm_tcgen05", ["producer", "mma", "epilogue"], True),
    ],
)
def test_each_generation_launches_its_own_kernel(arch: str, kernel: str, roles: list[str], persistent: bool) -> None:
    (launched,) = schedule(load_arch(arch), "gemm", GemmProblem(1024, 1024, 1024), {})
    assert launched.name == kernel
    assert [role.name for role in launched.roles] == roles
    assert launched.persistent is persistent


def test_l2_disabled_reads_every_tile_from_hbm() -> None:
    # 256 x 256 x 256 on H100 (128 x 256 x 64 tiles): 2 C tiles, each reading its A rows (128 x 256); they form one
    # cluster of 2 that multicasts B (256 x 256), each CTA fetching half of it.
    problem = GemmProblem(256, 256, 256)
    result = simulate(load_arch("h100", {"l2.capacity_bytes": 0}), "gemm", problem)
    assert result.hbm_read_bytes == (2 * 128 * 256 + 256 * 256) * 2
    assert result.hbm_write_bytes == 256 * 256 * 2
    unclustered = simulate(load_arch("h100", {"l2.capacity_bytes": 0}), "gemm", problem, {"cluster": 1})
    assert unclustered.hbm_read_bytes == 2 * (128 * 256 + 256 * 256) * 2
    cached = simulate("h100", "gemm", problem)
    assert cached.hbm_read_bytes == problem.compulsory_read_bytes


def test_clusters_need_the_feature() -> None:
    with pytest.raises(OptionError, match="needs thread-block clusters"):
        simulate("a100", "gemm", GemmProblem(256, 256, 256), {"cluster": 2})


def test_large_gemm_is_tensor_bound_on_hopper() -> None:
    result = simulate("h100", "gemm", GemmProblem(2048, 2048, 4096))
    assert result.bottleneck == "tensor", dict(result.busy)


def test_the_a100_kernel_reads_its_fragments_beside_its_mmas() -> None:
    # CUTLASS's multistage mainloop loads the next k-group's fragments (ldmatrix) while the MMAs run: the tensor
    # cores and the smem port are busy at once, so their busy fractions add up to more than the whole run. (Issued
    # one after the other, as before the sixty-fifth session, they could not: 0.66 + 0.33 at 8192^3.)
    result = simulate(load_arch("a100", {"contention": None}), "gemm", GemmProblem(4096, 4096, 4096))
    assert result.busy["tensor"] > 0.9
    assert result.busy["tensor"] + result.busy["smem"] > 1.0


def test_a_lone_cta_of_a_partial_cluster_loads_all_of_b() -> None:
    # One M tile (m = 128) in clusters of 2: no partner shares B, so the CTA fetches it whole.
    problem = GemmProblem(128, 256, 256)
    result = simulate(load_arch("h100", {"l2.capacity_bytes": 0}), "gemm", problem)
    assert result.hbm_read_bytes == (128 * 256 + 256 * 256) * 2
