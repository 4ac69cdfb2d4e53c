"""Microbenchmarks behind ``simgpu calibrate``: the ceiling of each unit the simulator models, measured on the GPU.

``memory.cu`` (HBM read and copy, L2 read by plain loads and by bulk async copies, L2-resident copy,
shared-memory read), ``compute.cu`` (MUFU ex2, FP32 FMA, ``mma.sync``, launch gap) and ``wgmma.cu`` (``wgmma``
m64n256k16, sm_90a) hold the kernels; ``gemm.py`` times the vendor GEMMs (cuBLAS, and cuBLASLt through torch).
``runner.measure()`` times them all and returns each rate per second and, for our kernels, per SM per clock, with
the SM clock sampled during that benchmark. ``runner.main(out_dir)`` also writes ``calibration.json`` and, where
``simgpu`` is importable, the calibrated arch YAML. Nothing here imports ``simgpu`` at module level: the GPU
machine need not have its dependencies.
"""
