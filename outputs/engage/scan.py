"""The contamination scan: sealed strings in what the developer changed in its workspace.

Looked for, in every file the developer added or modified (a hit already present in the
file's initial import is not the developer's and is not reported):

- **test ids**: the ids of the task's held-out tests (the live-experiment ids are the
  developer's handle and are in the kit: not sealed);
- **gold arguments** of the tests and the live experiments absent from the kit: every string
  argument of their gold actions (`outputs.packs.scan.gold_strings`) that no text file of
  the kit contains;
- **test-database records**: a record (one entry of a table) of the sealed test database
  that differs from every record of the kit's development data, found as a JSON object
  equal to it in a JSON file, or as its JSON text in any file; and the database's string
  values absent from the kit (names, ids, free text only the test data holds);
- **sealed files**: a file equal (size and sha256) to a sealed file of the task.

Matching is `outputs.packs.scan.Needles` (case-insensitive, on token boundaries), the pack
build's own kit scan. `.git/` is not scanned (what the agent is scored from is the working
files); a file is read up to `READ_MAX` bytes.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Iterable

from domains.simtests import SimTest
from outputs.packs.scan import Needles, gold_strings, strings_in

from .prepare import read_regular

READ_MAX = 16 << 20
MIN_LEN = 4


def _records(db: Any) -> Iterable[dict]:
    """The records of a database: every dict value of its top-level tables."""
    if not isinstance(db, dict):
        return
    for table in db.values():
        rows = table.values() if isinstance(table, dict) else table if isinstance(table, list) else []
        for r in rows:
            if isinstance(r, dict):
                yield r


def _json_forms(record: dict) -> set[str]:
    return {json.dumps(record, sort_keys=s, separators=sep, ensure_ascii=False)
            for s in (True, False) for sep in ((",", ":"), (", ", ": "))}


class SealedStrings:
    """What the scan looks for, built once per task from the pack and the materialized kit."""

    def __init__(self, ctx, kit: Path):
        tests = [SimTest.model_validate(t) for t in ctx.pack.json(ctx.task_id, "sealed", "tests.json")]
        live = [SimTest.model_validate(t) for t in ctx.pack.json(ctx.task_id, "sealed", "live.json")]
        kit_texts = _kit_texts(kit)
        dev_db = ctx.pack.json(ctx.task_id, "kit", "data/dev_db.json") if ctx.pack.has(
            ctx.task_id, "kit", "data/dev_db.json") else {}
        candidates = {s for t in tests + live for a in t.evaluation_criteria.actions for s in strings_in(a.arguments)}
        db_strings = {s for s in strings_in(ctx.db) if len(s.strip()) >= MIN_LEN} - strings_in(dev_db)
        public = _found_in(candidates | db_strings, kit_texts)
        gold, _ = gold_strings(tests + live, public)
        self.needles = Needles()
        self.needles.add("test_id", [t.id for t in tests])
        self.needles.add("gold_argument", sorted(gold))
        self.needles.add("test_db_value", sorted(db_strings - public))
        dev_records = [json.dumps(r, sort_keys=True) for r in _records(dev_db)]
        self.records = [r for r in _records(ctx.db) if json.dumps(r, sort_keys=True) not in set(dev_records)]
        self.record_forms = {f: i for i, r in enumerate(self.records) for f in _json_forms(r)}
        self.sealed_files = ctx.sealed_files()
        self.counts = dict(self.needles.count, test_db_record=len(self.records), sealed_file=len(self.sealed_files))

    def hits(self, path: str, data: bytes) -> list[dict]:
        out: list[dict] = []
        if (len(data), hashlib.sha256(data).hexdigest()) in self.sealed_files:
            out.append({"path": path, "what": "sealed_file", "needle": path})
        text = data.decode("utf-8", "replace")
        flat = " ".join(text.split())
        for what, needle, pos in self.needles.find(text):
            out.append({"path": path, "what": what, "needle": needle,
                        "context": flat[max(0, pos - 60):pos + len(needle) + 60]})
        seen: set[int] = set()
        for form, i in self.record_forms.items():
            if i not in seen and form in text:
                seen.add(i)
        if path.endswith(".json"):
            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = None
            if parsed is not None:
                seen |= {i for i, r in enumerate(self.records) if _contains(parsed, r)}
        out += [{"path": path, "what": "test_db_record", "needle": json.dumps(self.records[i], sort_keys=True)}
                for i in sorted(seen)]
        return out


def _contains(data: Any, record: dict, depth: int = 0) -> bool:
    if depth > 64:
        return False
    if isinstance(data, dict):
        return data == record or any(_contains(v, record, depth + 1) for v in data.values())
    if isinstance(data, list):
        return any(_contains(v, record, depth + 1) for v in data)
    return False


def _kit_texts(kit: Path) -> list[str]:
    out = []
    for dirpath, _, filenames in os.walk(kit):
        for name in filenames:
            data = read_regular(Path(dirpath) / name, READ_MAX)
            if data is None:
                continue
            try:
                out.append(data.decode("utf-8"))
            except UnicodeDecodeError:
                continue
    return out


def _found_in(strings: set[str], texts: list[str]) -> set[str]:
    """The strings (of at least MIN_LEN characters) that occur in any of `texts`."""
    needles = Needles()
    for s in strings:
        if len(s.strip()) >= MIN_LEN:
            needles.add(s, [s])
    found: set[str] = set()
    for t in texts:
        found |= {what for what, _, _ in needles.find(t)}
    return found


def scan_changes(sealed: SealedStrings, workspace: Path, changed: list[str], initial: dict[str, bytes]) -> dict:
    """The record's `contamination`: hits in the files of `changed` (relative paths) not
    already present in their initial import (`initial`: path -> bytes of the initial import)."""
    hits: list[dict] = []
    scanned = 0
    for rel in changed:
        data = read_regular(workspace / rel, READ_MAX)
        if data is None:
            continue
        scanned += 1
        before = {(h["what"], h["needle"]) for h in sealed.hits(rel, initial[rel])} if rel in initial else set()
        hits += [h for h in sealed.hits(rel, data) if (h["what"], h["needle"]) not in before]
    return {"clean": not hits, "files_scanned": scanned, "hits": hits, "needles": dict(sorted(sealed.counts.items()))}
