"""simgpu: a discrete-event simulator and cost model of GPUs at the level of their units.

Public API: `load_arch`, `Problem`, `GemmProblem`, `simulate`, `Result`, `Trace`, and the error types.
"""

from simgpu.api import roofline_cycles, simulate
from simgpu.arch import Arch, load_arch
from simgpu.errors import (
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
from simgpu.problem import GemmProblem, Problem
from simgpu.result import Result
from simgpu.trace import Trace

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
