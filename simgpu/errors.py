"""Exceptions raised by simgpu: one type per kind of mistake, so callers can tell bad input from a broken model.

Every message is one line that names what was wrong and where (file, key path, option, role or barrier).
"""

from __future__ import annotations


class SimgpuError(Exception):
    """Base of every error simgpu raises on purpose."""


class ArchError(SimgpuError):
    """An arch file or override is invalid: unknown/missing key, wrong type, out of range, inconsistent."""


class ProblemError(SimgpuError):
    """A problem shape or dtype is invalid, or the arch cannot run it."""


class OptionError(SimgpuError):
    """An algorithm option does not exist, has a bad value, or asks for a unit the arch lacks."""


class UnknownAlgorithmError(SimgpuError):
    """No algorithm is registered under that name."""


class ResourceError(SimgpuError):
    """A CTA does not fit on an SM (threads, registers, shared memory, TMEM)."""


class ScheduleError(SimgpuError):
    """A schedule is malformed: an op the arch cannot execute, a barrier that does not exist."""


class DeadlockError(ScheduleError):
    """The simulation stopped with roles still waiting on barriers that can never complete."""


class EventBudgetError(SimgpuError):
    """The simulation exceeded its event budget (use fast mode or a smaller problem)."""


class InternalError(SimgpuError):
    """An invariant of the model failed (cycles below the roofline, bytes below compulsory traffic)."""


class OutOfMemoryError(ProblemError):
    """The buffers a schedule keeps in HBM at once exceed the arch's HBM capacity."""
