"""The kit scan: a kit must not carry anything sealed. Blocking; the pack is not written on a hit.

Every kit file is read as text: evidence files through recoverability's extractors (text
layers, OCR of pixels, speech recognition of audio; the extraction cache is reused), plus
their raw bytes and, for zip-based formats, every member (metadata and markup the
extractor skips); other kit files as UTF-8 (JSON also as structure). Looked for:

- **test ids** of the task's test and live-experiment simulations;
- **gold action arguments** of those simulations: every string argument (ids, names,
  free text) that is not published anyway, i.e. not part of the API contract's vocabulary
  and not in the development database the kit ships (shared catalog entries and id
  schemes are public by construction); numbers are not scanned (policy values are what the
  kit must teach, and a bare number is no answer);
- **client-held facts**, by `presence.present_as` (the fact, in its context, not a
  coincidental number) and, in JSON, `presence.json_presence`;
- **answer-key files and fact ids**: any file named `facts.json` or `plan.json`, those names
  in any text, and any fact id of the domain (a report naming facts).
"""
from __future__ import annotations

import io
import json
import re
import zipfile
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional

from facts.match import TextIndex
from facts.models import Fact

from .presence import json_presence, present_as

ANSWER_KEY_FILES = ("facts.json", "plan.json")
_TOKEN = re.compile(r"[a-z0-9#@_+~-]+(?:\.[a-z0-9#@_+~-]+)*")
ZIP_SUFFIXES = (".docx", ".xlsx", ".pptx")


def _tokens(text: str) -> list[tuple[int, str]]:
    return [(m.start(), m.group(0)) for m in _TOKEN.finditer(text)]


class Needles:
    """Literal strings to find, case-insensitively, on token boundaries."""

    def __init__(self):
        self.by_first: dict[str, list[tuple[str, str]]] = {}
        self.count: dict[str, int] = {}

    def add(self, what: str, values: Iterable[str]) -> None:
        n = 0
        for v in values:
            low = " ".join(v.lower().split())
            toks = _tokens(low)
            if not toks:
                continue
            self.by_first.setdefault(toks[0][1], []).append((low, what))
            n += 1
        self.count[what] = self.count.get(what, 0) + n

    def find_tokens(self, tokens: set[str]) -> list[tuple[str, str, int]]:
        """Single-token needles among a set of tokens (binary files: no positions)."""
        return [(what, needle, 0) for tok in tokens for needle, what in self.by_first.get(tok, ()) if needle == tok]

    def find(self, text: str) -> list[tuple[str, str, int]]:
        low = " ".join(text.lower().split())
        out = []
        for pos, tok in _tokens(low):
            for needle, what in self.by_first.get(tok, ()):
                if low.startswith(needle, pos):
                    end = pos + len(needle)
                    if end == len(low) or not low[end].isalnum():
                        out.append((what, needle, pos))
        return out


def strings_in(data: Any, out: Optional[set[str]] = None) -> set[str]:
    out = set() if out is None else out
    if isinstance(data, dict):
        for k, v in data.items():
            out.add(str(k))
            strings_in(v, out)
    elif isinstance(data, list):
        for v in data:
            strings_in(v, out)
    elif isinstance(data, str):
        out.add(data)
    return out


def gold_strings(tests: list, public: set[str]) -> tuple[set[str], set[str]]:
    """(strings to scan for, strings left out as public) among the tests' gold arguments."""
    scan, skipped = set(), set()
    low_public = {p.lower() for p in public}
    for t in tests:
        for a in t.evaluation_criteria.actions:
            for s in strings_in(a.arguments) - set(a.arguments):
                if len(s.strip()) < 4:
                    continue
                (skipped if s.lower() in low_public else scan).add(s)
    return scan, skipped


@dataclass
class KitText:
    path: str
    texts: list[tuple[str, str]]          # (reader, text): extraction, raw text, zip members
    data: Any = None                      # parsed JSON, when the file is JSON
    speech: bool = False
    tokens: Optional[set[str]] = None     # tokens of a binary file's bytes


@dataclass
class ScanReport:
    files: int = 0
    chars: int = 0
    hits: list[dict] = field(default_factory=list)
    needles: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"files_scanned": self.files, "chars_scanned": self.chars, "hits": self.hits,
                "needles": dict(sorted(self.needles.items()))}


_TOKEN_MEMO: dict[str, set[str]] = {}


def raw_views(path: str, sha: str, data: bytes) -> tuple[list[tuple[str, str]], Optional[set[str]]]:
    """Views of a file's bytes: UTF-8 text as a text ("raw-text"), else the set of its tokens
    (memoised by sha256); for zip-based documents, each member as text."""
    out: list[tuple[str, str]] = []
    tokens = None
    if _is_utf8(data):
        out.append(("raw-text", data.decode("utf-8")))
    else:
        if sha not in _TOKEN_MEMO:
            _TOKEN_MEMO[sha] = {t for _, t in _tokens(data.decode("latin-1").lower())}
        tokens = _TOKEN_MEMO[sha]
    if path.endswith(ZIP_SUFFIXES):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                for name in sorted(z.namelist()):
                    out.append((f"zip:{name}", z.read(name).decode("utf-8", "replace")))
        except zipfile.BadZipFile:
            pass
    return out, tokens


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def scan_kit(files: list[KitText], needles: Needles, held: list[Fact], rivals: dict[str, list[Fact]],
             index: Callable[[str], TextIndex]) -> ScanReport:
    """`index(text)` builds (or recalls) the text index recoverability matches against."""
    rep = ScanReport(needles=dict(needles.count))
    rep.needles["held_facts"] = len(held)
    for kf in files:
        rep.files += 1
        base = kf.path.rsplit("/", 1)[-1]
        if base in ANSWER_KEY_FILES:
            rep.hits.append({"path": kf.path, "what": "answer_key_file", "needle": base, "reader": "path"})
        if kf.tokens is not None:
            rep.hits += [{"path": kf.path, "what": what, "needle": needle, "reader": "raw-bytes", "context": needle}
                         for what, needle, _ in needles.find_tokens(kf.tokens)]
        for reader, text in kf.texts:
            rep.chars += len(text)
            for what, needle, pos in needles.find(text):
                rep.hits.append({"path": kf.path, "what": what, "needle": needle, "reader": reader,
                                 "context": " ".join(text.split())[max(0, pos - 60):pos + len(needle) + 60]})
            if held and reader in ("extraction", "raw-text", "text"):
                idx = index(text)
                for h in held:
                    hit = present_as(h, idx, rivals.get(h.id, []), speech=kf.speech and reader == "extraction")
                    if hit:
                        rep.hits.append({"path": kf.path, "what": "client_held_fact", "needle": h.id,
                                         "reader": reader, "context": hit})
        if kf.data is not None:
            for h in held:
                where = json_presence(h, kf.data)
                if where:
                    rep.hits.append({"path": kf.path, "what": "client_held_fact", "needle": h.id,
                                     "reader": "json", "context": where})
    return rep


def text_file(path: str, data: bytes) -> KitText:
    """A non-evidence kit file (JSON, Markdown, Python, TOML)."""
    text = data.decode("utf-8")
    parsed = json.loads(text) if path.endswith(".json") else None
    return KitText(path=path, texts=[("text", text)], data=parsed)
