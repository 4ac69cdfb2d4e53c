"""simgpu: a discrete-event simulator and cost model of GPUs at the level of their units.

Public API: `load_arch`, `Problem`, `GemmProblem`, `simulate`, `Result`, `Trace`, and the error types.
"""

from simgpu import native

native.activate()  # before the engine's modules load: a stale compiled build must not run (`simgpu.native`)

from simgpu.api import roofline_cycles, simulate  # noqa: E402
from simgpu.arch import Arch, load_arch  # noqa: E402
from simgpu.errors import (  # noqa: E402
    ArchError,
    DeadlockError,
    EventBudgetError,
    InternalError,
    OptionError,
    ProblemError,
    ResourceError,
    ScheduleError,
    SimgpuError,
    UnknownAlgorithmError,
)
from simgpu.problem import GemmProblem, Problem  # noqa: E402
from simgpu.result import Result  # noqa: E402
from simgpu.trace import Trace  # noqa: E402

__all__ = [
    "Arch",
    "ArchError",
    "DeadlockError",
    "EventBudgetError",
    "GemmProblem",
    "InternalError",
    "OptionError",
    "Problem",
    "ProblemError",
    "ResourceError",
    "Result",
    "ScheduleError",
    "SimgpuError",
    "Trace",
    "UnknownAlgorithmError",
    "load_arch",
    "roofline_cycles",
    "simulate",
]
