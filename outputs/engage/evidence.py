"""Evidence read: which kit files the developer opened, watched from outside its boundary.

Linux inotify (through ctypes) watches every directory of `DIR/kit` for `IN_OPEN`. The
kernel reports an open on the file's inode through the directory it was opened from, so an
open inside the boundary (where the kit is a read-only bind at `/kit`) is seen here, and an
open of another copy of the same content (the tools' own kit, the evaluator's) is not. The
watch runs while the developer runs and stops before scoring; it counts files, not bytes
(a file opened is a file read for this measure), and directory listings are not counted.

`summarise` turns the opened paths into the record's measure: evidence files opened per
family and per kind against how many the kit holds, the other kit files opened, and how
many of the files that carry the facts the task's tests exercise (the sealed evidence plan:
an artifact carries a fact when the plan gives it the `carrier` role) were opened.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import select
import struct
import threading
import time
from pathlib import Path
from typing import Optional

IN_OPEN = 0x00000020
IN_Q_OVERFLOW = 0x00004000
IN_IGNORED = 0x00008000
IN_ISDIR = 0x40000000
IN_NONBLOCK = 0o4000
IN_CLOEXEC = 0o2000000
_EVENT = struct.Struct("iIII")


class KitWatch:
    """inotify on every directory under `kit`: `opened` maps a kit path (relative, POSIX) to
    the seconds from `start()` when it was first opened."""

    def __init__(self, kit: Path, clock=time.monotonic):
        self.kit = Path(kit)
        self.clock = clock
        self.opened: dict[str, float] = {}
        self.overflow = False
        self.available = False
        self._fd: Optional[int] = None
        self._dirs: dict[int, str] = {}
        self._t0 = 0.0
        self._halt = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._lock = threading.Lock()

    def start(self) -> "KitWatch":
        libc_name = ctypes.util.find_library("c")
        try:
            libc = ctypes.CDLL(libc_name, use_errno=True)
            fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        except (OSError, AttributeError):
            return self
        if fd < 0:
            return self
        self._fd = fd
        for dirpath, _, _ in os.walk(self.kit):
            rel = Path(dirpath).relative_to(self.kit).as_posix()
            wd = libc.inotify_add_watch(fd, os.fsencode(dirpath), IN_OPEN)
            if wd >= 0:
                self._dirs[wd] = "" if rel == "." else rel
        self.available = bool(self._dirs)
        self._t0 = self.clock()
        self._thread = threading.Thread(target=self._loop, name="kit-watch", daemon=True)
        self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._halt.is_set():
            ready, _, _ = select.select([self._fd], [], [], 0.2)
            if ready:
                self._drain()

    def _drain(self) -> None:
        try:
            data = os.read(self._fd, 1 << 16)
        except BlockingIOError:
            return
        except OSError:
            return
        now = self.clock() - self._t0
        i = 0
        while i + _EVENT.size <= len(data):
            wd, mask, _, length = _EVENT.unpack_from(data, i)
            name = data[i + _EVENT.size:i + _EVENT.size + length].split(b"\0", 1)[0].decode("utf-8", "replace")
            i += _EVENT.size + length
            if mask & IN_Q_OVERFLOW:
                self.overflow = True
                continue
            if mask & (IN_ISDIR | IN_IGNORED) or not name or wd not in self._dirs:
                continue
            rel = f"{self._dirs[wd]}/{name}" if self._dirs[wd] else name
            with self._lock:
                self.opened.setdefault(rel, round(now, 3))

    def stop(self) -> dict[str, float]:
        """Stop watching (after reading what is queued); the files opened."""
        if self._fd is None:
            return {}
        self._halt.set()
        if self._thread is not None:
            self._thread.join(5)
        self._drain()
        os.close(self._fd)
        self._fd = None
        with self._lock:
            return dict(sorted(self.opened.items()))


def kind_of(path: str) -> Optional[str]:
    """`family/kind` of an evidence path (`evidence/<family>/<kind>/...`), else None."""
    parts = path.split("/")
    return f"{parts[1]}/{parts[2]}" if len(parts) >= 4 and parts[0] == "evidence" else None


def carriers(plan: dict, fact_ids: set[str]) -> dict[str, list[str]]:
    """Evidence path -> the tested facts it carries (the plan's `carrier` role)."""
    out: dict[str, list[str]] = {}
    for a in plan.get("artifacts", []):
        got = sorted({f["fact_id"] for f in a.get("facts", []) if f.get("role") == "carrier"
                      and f.get("fact_id") in fact_ids})
        if got:
            out[a["path"]] = got
    return out


def summarise(opened: dict[str, float], kit_files: list[str], plan: dict, tested: set[str], *,
              available: bool = True, overflow: bool = False) -> dict:
    """The record's `evidence_read`."""
    evidence = [p for p in kit_files if kind_of(p)]
    by_kind: dict[str, dict[str, int]] = {}
    by_family: dict[str, dict[str, int]] = {}
    for p in evidence:
        k = kind_of(p)
        for table, key in ((by_kind, k), (by_family, k.split("/")[0])):
            row = table.setdefault(key, {"read": 0, "total": 0})
            row["total"] += 1
            row["read"] += p in opened
    read = sorted(p for p in evidence if p in opened)
    carry = carriers(plan, tested)
    facts_reached = sorted({f for p, fs in carry.items() if p in opened for f in fs})
    other = sorted(p for p in opened if not kind_of(p) and not p.startswith("bin/"))
    return {
        "watched": available, "overflow": overflow,
        "files": len(read), "files_total": len(evidence),
        "by_family": dict(sorted(by_family.items())), "by_kind": dict(sorted(by_kind.items())),
        "carriers": {"read": sum(1 for p in carry if p in opened), "total": len(carry),
                     "facts_tested": len(tested), "facts_reached": facts_reached},
        "paths": [{"path": p, "t": opened[p]} for p in read],
        "other_kit_files": [{"path": p, "t": opened[p]} for p in other],
    }
