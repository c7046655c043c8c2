"""The server's clock: virtual (tests and evaluation) or real (live use).

Every time-dependent behaviour of a deployment (a rate-limit window, an asynchronous job,
a projection's lag) reads `clock.now()` (seconds since the trial started). Nothing else
does: the domain operations keep the pack's fixed world clock, so replays hash the same.

- `VirtualClock`: time stands still until somebody waits. `wait(s)` advances it by `s`, at
  once. A client waits through the API (`POST /_clock/wait`, which the kit SDK's `wait()`
  calls), so a Retry-After of 30 s or a job that completes in 5 s costs no wall time and the
  whole defect suite runs in seconds, with the same outcome on every run.
- `RealClock`: wall time since the trial started; `wait(s)` sleeps (asynchronously, so other
  requests are served meanwhile).
"""
from __future__ import annotations

import asyncio
import threading
import time
from typing import Literal

ClockMode = Literal["virtual", "real"]
MAX_WAIT_S = 3600.0


class VirtualClock:
    mode: ClockMode = "virtual"

    def __init__(self) -> None:
        self._t = 0.0
        self._lock = threading.Lock()

    def now(self) -> float:
        return self._t

    async def wait(self, seconds: float) -> float:
        return self.advance(seconds)

    def advance(self, seconds: float) -> float:
        with self._lock:
            self._t = round(self._t + max(0.0, float(seconds)), 6)
            return self._t

    def reset(self) -> None:
        with self._lock:
            self._t = 0.0


class RealClock:
    mode: ClockMode = "real"

    def __init__(self) -> None:
        self._t0 = time.monotonic()

    def now(self) -> float:
        return round(time.monotonic() - self._t0, 6)

    async def wait(self, seconds: float) -> float:
        await asyncio.sleep(max(0.0, float(seconds)))
        return self.now()

    def advance(self, seconds: float) -> float:
        time.sleep(max(0.0, float(seconds)))
        return self.now()

    def reset(self) -> None:
        self._t0 = time.monotonic()


def make_clock(mode: ClockMode) -> VirtualClock | RealClock:
    if mode == "virtual":
        return VirtualClock()
    if mode == "real":
        return RealClock()
    raise ValueError(f"unknown clock mode {mode!r} (virtual or real)")
