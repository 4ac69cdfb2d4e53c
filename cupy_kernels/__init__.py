"""Raw CUDA attention kernels launched with CuPy, measured on the H200 to validate the simulator.

One sub-package per schedule (``standard``, ``v1``, ``v2``), each with its ``.cu`` source and a thin
``launch`` module; ``common`` holds the shared device helpers (``common.cuh``) and the Python plumbing
(compilation, dtypes, timing); ``python -m cupy_kernels.selfcheck --out DIR`` compiles, checks and times them.
"""
