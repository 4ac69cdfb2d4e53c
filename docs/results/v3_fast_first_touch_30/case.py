"""The v3 validation configuration these scripts look at: 32 x 32 heads, N = 512, d = 64, causal, ping-pong off,
intra-warpgroup overlap on, one CTA per tile, from the committed H200 measurements."""

from __future__ import annotations

from simgpu.validation import Case, read_cases


def validation_case() -> Case:
    return next(
        each
        for each in read_cases("validation/h200/v3_kernels_h200.csv", "h200", {"v3"}, None)
        if (each.problem.seqlen_q, each.problem.headdim, each.problem.causal) == (512, 64, True)
        and (each.options.get("pingpong"), each.options.get("intra_wg_overlap")) == (False, True)
    )
