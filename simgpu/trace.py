"""Event traces: spans of unit activity and of each warp role's ops, exported as Chrome trace JSON (Perfetto) or
read as a unit's busy fraction per window of cycles (`busy_per_window`).

Only the SMs asked for are recorded (SM 0 by default), plus the chip-wide HBM and L2, and at most `max_spans`
spans, so a trace of a long run stays small. One process per SM (and one for the chip), one track per unit and per
warp role. Times are exported in microseconds at the clock the run used.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from simgpu.errors import SimgpuError


@dataclass(frozen=True, slots=True)
class Span:
    process: str
    track: str
    name: str
    start_cycles: float
    end_cycles: float


class Trace:
    """A recorder the engine writes into while it runs; `spans` is read once the run is over."""

    def __init__(self, sms: Iterable[int] = (0,), max_spans: int = 200_000) -> None:
        self.sms = frozenset(sms)
        self.max_spans = max_spans
        self.spans: list[Span] = []
        self.dropped = 0

    def _add(self, span: Span) -> None:
        if len(self.spans) < self.max_spans:
            self.spans.append(span)
        else:
            self.dropped += 1

    def unit_span(self, process: str, unit: str, start: float, end: float) -> None:
        self._add(Span(process, f"unit {unit}", unit, start, end))

    def role_span(self, process: str, track: str, name: str, start: float, end: float) -> None:
        self._add(Span(process, track, name, start, end))


def busy_per_window(spans: Iterable[Span], track: str, window_cycles: float, end_cycles: float) -> list[float]:
    """The share of each window of `window_cycles` from 0 to `end_cycles` that the spans of `track` cover: a unit's
    busy fraction over the run ("unit hbm": the chip's HBM, which serves one request at a time; the spans of a track
    that overlap count each, and what of a span lies past the last window does not count)."""
    if window_cycles <= 0:
        raise SimgpuError(f"a window must be positive; got {window_cycles} cycles")
    busy = [0.0] * (int(end_cycles // window_cycles) + 1)
    for span in spans:
        if span.track != track:
            continue
        start, end = span.start_cycles, span.end_cycles
        while start < end:
            window = int(start // window_cycles)
            stop = min(end, (window + 1) * window_cycles)
            if window >= len(busy):
                break
            busy[window] += stop - start
            start = stop
    return [cycles / window_cycles for cycles in busy]


def chrome_trace(spans: Iterable[Span], clock_hz: float) -> dict[str, object]:
    """The Chrome trace-event JSON object for `spans` (complete events, 'X')."""
    us_per_cycle = 1e6 / clock_hz
    pids: dict[str, int] = {}
    tids: dict[tuple[str, str], int] = {}
    events: list[dict[str, object]] = []
    for span in spans:
        pid = pids.setdefault(span.process, len(pids))
        tid = tids.setdefault((span.process, span.track), len(tids))
        events.append(
            {
                "name": span.name,
                "ph": "X",
                "pid": pid,
                "tid": tid,
                "ts": span.start_cycles * us_per_cycle,
                "dur": (span.end_cycles - span.start_cycles) * us_per_cycle,
            }
        )
    for process, pid in pids.items():
        events.append({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": process}})
    for (process, track), tid in tids.items():
        events.append({"name": "thread_name", "ph": "M", "pid": pids[process], "tid": tid, "args": {"name": track}})
    return {"traceEvents": events, "displayTimeUnit": "ns"}


def write_chrome_trace(path: str | Path, spans: Iterable[Span], clock_hz: float) -> None:
    try:
        Path(path).write_text(json.dumps(chrome_trace(spans, clock_hz)), encoding="utf-8")
    except OSError as err:
        raise SimgpuError(f"cannot write trace to {path}: {err.strerror or err}") from None
