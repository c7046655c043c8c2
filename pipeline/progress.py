"""Live build progress: steps append events to a file in the workspace, the CLI shows them.

Writers are the asset steps, wherever they run (the CLI's own process, a Dask worker on
another machine): each appends one JSON line per event to the build's progress file, which
lives in the shared workspace. The CLI tails that file and shows, per domain, artifacts
rendered and extracted (cache hits counted) and an ETA: a live table on a terminal, plain
lines otherwise (a line per domain when a stage starts, when a step finishes, naming it, and
at most one every 10 s in between).

ETA: every unit of work has a rough cost by modality (`transforms.render.COST`,
`audits.extraction.COST`: a screen recording costs more than a chat log); the domain's
remaining cost, render and extraction together, divided by the cost per second of the units
finished so far (cache hits excluded).
"""
from __future__ import annotations

import json
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, TextIO

from rich.console import Console
from rich.live import Live
from rich.table import Table

from audits.extraction import COST as EXTRACT_COST
from audits.extraction import DEFAULT_COST as EXTRACT_DEFAULT
from transforms.pool import Tally
from transforms.render import COST as RENDER_COST
from transforms.render import DEFAULT_COST as RENDER_DEFAULT


def plan_cost(modalities: dict[str, int]) -> float:
    """Expected cost of rendering and extracting a plan with these artifacts per modality."""
    return sum(n * (RENDER_COST.get(m, RENDER_DEFAULT) + EXTRACT_COST.get(m, EXTRACT_DEFAULT))
               for m, n in modalities.items())


class ProgressLog:
    """Appends events of one partition to the progress file (no-op without a file)."""

    def __init__(self, path: Optional[str], key: str):
        self.path, self.key = path, key
        self._last = 0.0

    def emit(self, event: str, **fields) -> None:
        if not self.path:
            return
        line = json.dumps({"key": self.key, "event": event, "t": time.time(), **fields}, separators=(",", ":"))
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, (line + "\n").encode())
        finally:
            os.close(fd)

    def plan(self, modalities: dict[str, int]) -> None:
        """The plan's artifacts per modality (totals and expected cost of both stages)."""
        self.emit("plan", modalities=modalities)

    def stage(self, stage: str, part: str) -> Callable[[Tally], None]:
        """A progress callback for one step (stage "render" or "extract"; part: the family)."""
        def cb(t: Tally) -> None:
            now = time.monotonic()
            if t.done < t.total and t.done > t.cached and now - self._last < 0.5:
                return
            self._last = now
            self.emit(stage, part=part, done=t.done, total=t.total, cached=t.cached,
                      cost_done=round(t.cost_done, 3), cost_cached=round(t.cost_cached, 3))
        return cb

    def finished(self) -> None:
        self.emit("done")


# --- reader side (the CLI) -----------------------------------------------------------------
@dataclass
class DomainState:
    key: str
    render_total: int = 0
    extract_total: int = 0
    cost_total: float = 0.0
    parts: dict[tuple[str, str], dict] = field(default_factory=dict)
    first_work: Optional[float] = None
    last: float = 0.0
    finished: bool = False

    def stage_counts(self, stage: str) -> tuple[int, int]:
        rows = [v for (s, _), v in self.parts.items() if s == stage]
        return sum(r["done"] for r in rows), sum(r["cached"] for r in rows)

    def eta(self) -> Optional[float]:
        done = sum(v["cost_done"] for v in self.parts.values())
        worked = done - sum(v["cost_cached"] for v in self.parts.values())
        if self.finished:
            return 0.0
        if self.first_work is None or worked <= 0 or self.last <= self.first_work:
            return None
        rate = worked / (self.last - self.first_work)
        return max(0.0, (self.cost_total - done) / rate)


def _fmt_eta(s: Optional[float]) -> str:
    if s is None:
        return "ETA --"
    s = int(round(s))
    return f"ETA {s // 60}m{s % 60:02d}s" if s >= 60 else f"ETA {s}s"


class ProgressView:
    """Tails the progress file in a thread and shows it (rich live table on a terminal,
    plain lines otherwise)."""

    def __init__(self, path: Path, keys: list[str], stream: TextIO = sys.stderr, tty: Optional[bool] = None,
                 plain_every: float = 10.0):
        self.path = Path(path)
        self.states = {k: DomainState(k) for k in keys}
        self.stream = stream
        self.tty = stream.isatty() if tty is None else tty
        self.plain_every = plain_every
        self._pos = 0
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._printed: dict[str, tuple] = {}
        self._printed_at: dict[str, float] = {}
        self._steps_shown: dict[str, set[tuple[str, str]]] = {}
        self._live = None

    # events
    def _apply(self, ev: dict) -> None:
        st = self.states.get(ev.get("key", ""))
        if st is None:
            return
        if ev["event"] == "plan":
            mods = ev["modalities"]
            st.render_total = st.extract_total = sum(mods.values())
            st.cost_total = plan_cost(mods)
        elif ev["event"] in ("render", "extract"):
            prev = st.parts.get((ev["event"], ev["part"]))
            st.parts[(ev["event"], ev["part"])] = ev
            if st.first_work is None and ev["done"] > ev["cached"]:
                # work began when the first non-cached unit of this step started, i.e. at its
                # previous event (the step's first event is sent before any unit runs)
                st.first_work = prev["t"] if prev else ev["t"]
        elif ev["event"] == "done":
            st.finished = True
        st.last = ev["t"]

    def poll(self) -> None:
        if not self.path.exists():
            return
        with open(self.path, "rb") as f:
            f.seek(self._pos)
            data = f.read()
        end = data.rfind(b"\n") + 1
        self._pos += end
        for line in data[:end].splitlines():
            if line.strip():
                self._apply(json.loads(line))

    # display
    def line(self, st: DomainState) -> str:
        rd, rc = st.stage_counts("render")
        xd, xc = st.stage_counts("extract")
        status = "done" if st.finished else _fmt_eta(st.eta())
        return (f"{st.key}: rendered {rd}/{st.render_total or '?'} ({rc} cached), "
                f"extracted {xd}/{st.extract_total or '?'} ({xc} cached), {status}")

    def _plain(self) -> None:
        now = time.monotonic()
        for k, st in self.states.items():
            if not (st.parts or st.finished):
                continue
            steps = {p for p, v in st.parts.items() if v["total"] and v["done"] >= v["total"]}
            new = sorted(steps - self._steps_shown.get(k, set()))
            sig = (tuple(sorted(s for s, _ in st.parts)), len(steps), st.finished)
            if sig != self._printed.get(k) or now - self._printed_at.get(k, 0) >= self.plain_every:
                if sig == self._printed.get(k) and st.finished:
                    continue
                self._printed[k], self._printed_at[k], self._steps_shown[k] = sig, now, steps
                done = f" (finished: {', '.join(f'{stage} {part}' for stage, part in new)})" if new else ""
                print(self.line(st) + done, file=self.stream, flush=True)

    def _table(self):
        t = Table.grid(padding=(0, 2))
        for st in self.states.values():
            rd, rc = st.stage_counts("render")
            xd, xc = st.stage_counts("extract")
            t.add_row(st.key, f"rendered {rd}/{st.render_total or '?'} ({rc} cached)",
                      f"extracted {xd}/{st.extract_total or '?'} ({xc} cached)",
                      "done" if st.finished else _fmt_eta(st.eta()))
        return t

    def _loop(self) -> None:
        while not self._stop.wait(0.5):
            self.refresh()

    def refresh(self) -> None:
        self.poll()
        if self._live is not None:
            self._live.update(self._table())
        elif not self.tty:
            self._plain()

    def __enter__(self) -> "ProgressView":
        if self.tty:
            self._live = Live(self._table(), console=Console(file=self.stream), refresh_per_second=2, transient=False)
            self._live.__enter__()
        self._thread = threading.Thread(target=self._loop, name="factforge-progress", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.refresh()
        if self._live is not None:
            self._live.__exit__(*exc)
