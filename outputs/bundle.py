"""The bundle format: versioned, content-addressed, verified.

    OUT/bundles/<domain>/<version>/
        manifest.json          schema version, bundle version, domain, variant, seed, ...
        facts.json             the FactSet the bundle was built from
        plan.json              the evidence plan (carriers, distractors, superseded values)
        evidence/<family>/<kind>/<artifact><ext>
        reports/recoverability.json (and reports/leaks.json for variants)

`bundle_version` is "<semver>+<variant.><hash12>", e.g. "0.1.0+halcyon.3fa2c1d9e0ab". The
content hash covers **every manifest field**: the header (schema version, the version's
"<semver>+<variant.>" part, domain, variant, seed, generator, facts and plan hashes), every
file entry and every fact-index entry (`ManifestHasher`). The version's last 12 characters
are the hash's first 12, so a version cannot be edited without the hash noticing. Same
inputs and seed give the same version. A bundle is assembled in a temporary directory beside
its destination (`.tmp-bundle-*`, locked by its writer) and renamed into place; an existing
bundle with the same version is identical by construction and is kept. Temporary
directories whose writer died (a killed build) are removed by the next write into the same
output root.

`verify` trusts nothing in the manifest:

- paths must be relative POSIX paths inside the bundle (no `/` at the start, no `..` or `.`
  parts, no empty parts, no backslash or control character: `outputs.paths.path_problem`,
  the rule pack manifests follow too), listed once, in sorted order; a manifest that breaks
  a rule is refused with one line naming the field and the reason
  (`manifest.json: files[3].path: '../../etc/passwd': '..' is not allowed in a manifest path`);
- the bundle's own tree is walked through directory file descriptors without following
  any link: a symbolic link anywhere (a file, a directory, manifest.json itself) is a
  problem and is never followed, and only files found in that walk are opened (with
  O_NOFOLLOW), so no file outside the bundle is ever opened, whatever the manifest says; a
  file whose size differs from its entry is reported without being read;
- the manifest is read as a stream in two passes (validate and hash, then compare with the
  tree in merge order), so memory does not grow with the number of entries: a single JSON
  value (one file entry, one header field, one path) may not exceed `MAX_VALUE_CHARS`
  (1 MiB), and that is the only size limit. Problems are reported as they are found.

This module imports nothing from Dagster or the media stack (the evaluator reads bundles).
"""
from __future__ import annotations

import codecs
import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from facts.errors import FactforgeError
from facts.hashing import canonical_json, file_sha256
from facts.names import NAME_RE

from .paths import CHUNK as _CHUNK
from .paths import HEX64, hash_file, open_dir, path_problem, shown, walk

BUNDLE_SCHEMA_VERSION = "1.1"  # 1.1: the content hash covers every manifest field (ManifestHasher)
SEMVER = "0.1.0"
MAX_VALUE_CHARS = 1 << 20
TMP_PREFIX = ".tmp-bundle-"
_LOCK = ".writer.lock"


class FileEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    path: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    size: int = Field(ge=0)
    family: Optional[str] = None
    kind: Optional[str] = None
    artifact_id: Optional[str] = None
    fact_ids: list[str] = Field(default_factory=list)


class ManifestHeader(BaseModel):
    """Every manifest field but the two big ones (files, fact_index)."""
    model_config = ConfigDict(extra="forbid", strict=True)
    schema_version: str
    bundle_version: str
    content_hash: str = Field(pattern=r"^[0-9a-f]{64}$")
    domain: str = Field(pattern=NAME_RE.pattern)
    variant: Optional[str] = Field(None, pattern=NAME_RE.pattern)
    base_domain: Optional[str] = Field(None, pattern=NAME_RE.pattern)
    variant_spec_hash: Optional[str] = None
    seed: int
    generator_version: str
    facts_hash: str
    plan_hash: str


class Manifest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    schema_version: str = BUNDLE_SCHEMA_VERSION
    bundle_version: str = ""
    content_hash: str = ""
    domain: str
    variant: Optional[str] = None
    base_domain: Optional[str] = None
    variant_spec_hash: Optional[str] = None
    seed: int
    generator_version: str
    facts_hash: str
    plan_hash: str
    files: list[FileEntry]
    fact_index: dict[str, list[str]]

    def version_prefix(self) -> str:
        return f"{SEMVER}+{self.variant + '.' if self.variant else ''}"

    def compute_hash(self) -> str:
        header = self.model_dump(mode="json", exclude={"files", "fact_index", "content_hash"})
        header["bundle_version"] = self.version_prefix()
        h = ManifestHasher()
        for e in self.files:
            h.file(e)
        for fid, paths in self.fact_index.items():
            h.index(fid, paths)
        return h.hexdigest(header)


class ManifestHasher:
    """The content hash = sha256 of canonical JSON {header, files: sha256 of each entry's
    canonical JSON line in order, fact_index: sha256 of each [fact id, paths] line in order};
    the header holds every other field with `bundle_version` cut to its "<semver>+<variant.>"
    part. Built incrementally, so `verify` can take it over a streamed manifest."""

    def __init__(self) -> None:
        self._files = hashlib.sha256()
        self._index = hashlib.sha256()

    def file(self, e: FileEntry) -> None:
        self.file_line(canonical_json(e.model_dump(mode="json")))

    def file_line(self, line: str) -> None:
        self._files.update(line.encode("utf-8") + b"\n")

    def index(self, fid: str, paths: list[str]) -> None:
        self.index_line(canonical_json([fid, paths]))

    def index_line(self, line: str) -> None:
        self._index.update(line.encode("utf-8") + b"\n")

    def hexdigest(self, header: dict[str, Any]) -> str:
        return hashlib.sha256(canonical_json({"header": header, "files": self._files.hexdigest(),
                                              "fact_index": self._index.hexdigest()}).encode("utf-8")).hexdigest()


def _json_bytes(obj) -> bytes:
    return (json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


# --------------------------------------------------------------------------- paths

_WS = re.compile(r"[ \t\r\n]*")


def _check_path(rel: str, field: str) -> str:
    why = path_problem(rel)
    if why:
        raise FactforgeError(f"{field}: {rel!r}: {why}")
    return rel


# --------------------------------------------------------------------------- writing

def write_bundle(out_root: Path, *, domain: str, seed: int, generator_version: str, facts_json: dict,
                 plan_json: dict, artifacts: list[dict], reports: dict[str, dict],
                 variant: Optional[str] = None, base_domain: Optional[str] = None,
                 variant_spec_hash: Optional[str] = None) -> tuple[Path, Manifest]:
    """artifacts: dicts with path (bundle-relative), file (source path), family, kind,
    artifact_id, fact_ids. reports: bundle-relative path -> JSON object."""
    for what, name in (("domain", domain), ("variant", variant), ("base_domain", base_domain)):
        if name is not None and not NAME_RE.match(name):
            raise FactforgeError(f"bundle {what} {name!r} is not a valid name (it would be a path outside the output)")
    out_root = Path(out_root)
    parent = out_root / "bundles" / domain
    parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temp(out_root)
    tmp = Path(tempfile.mkdtemp(prefix=TMP_PREFIX, dir=parent))
    lock = os.open(tmp / _LOCK, os.O_CREAT | os.O_RDWR | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        entries: list[FileEntry] = []

        def add_bytes(rel: str, data: bytes, **meta) -> None:
            p = tmp / _check_path(rel, "bundle file")
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
            entries.append(FileEntry(path=rel, sha256=hashlib.sha256(data).hexdigest(), size=len(data), **meta))

        add_bytes("facts.json", _json_bytes(facts_json))
        add_bytes("plan.json", _json_bytes(plan_json))
        for rel, rep in sorted(reports.items()):
            add_bytes(rel, _json_bytes(rep), family="reports")
        for a in sorted(artifacts, key=lambda a: a["path"]):
            dest = tmp / _check_path(a["path"], "artifact")
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(a["file"], dest)
            entries.append(FileEntry(path=a["path"], sha256=file_sha256(dest), size=dest.stat().st_size,
                                     family=a["family"], kind=a["kind"], artifact_id=a["artifact_id"],
                                     fact_ids=sorted(a["fact_ids"])))
        entries.sort(key=lambda e: e.path)
        for a, b in zip(entries, entries[1:]):
            if a.path == b.path:
                raise FactforgeError(f"two bundle files share the path {a.path!r}")
        index: dict[str, list[str]] = {}
        for e in entries:
            for fid in e.fact_ids:
                index.setdefault(fid, []).append(e.path)
        man = Manifest(domain=domain, variant=variant, base_domain=base_domain,
                       variant_spec_hash=variant_spec_hash, seed=seed, generator_version=generator_version,
                       facts_hash=facts_json.get("hash", ""), plan_hash=plan_json.get("hash", ""),
                       files=entries, fact_index=dict(sorted(index.items())))
        h = man.compute_hash()
        man.content_hash = h
        man.bundle_version = f"{man.version_prefix()}{h[:12]}"
        (tmp / "manifest.json").write_bytes(_json_bytes(man.model_dump(mode="json")))
        os.unlink(tmp / _LOCK)
        final = parent / man.bundle_version
        if os.path.dirname(os.path.normpath(final)) != os.path.normpath(parent):
            raise FactforgeError(f"bundle version {man.bundle_version!r} would leave the output folder", parent)
        if final.exists():
            shutil.rmtree(tmp)
        else:
            os.replace(tmp, final)
        return final, man
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        os.close(lock)


def remove_stale_temp(out_root: Path) -> list[Path]:
    """Remove `bundles/*/.tmp-bundle-*` folders whose writer is gone (a killed build): a live
    writer holds an exclusive lock on the folder's lock file until it renames the folder into
    place, so a folder whose lock can be taken, or that has no lock file and is older than a
    minute (killed between creating it and locking it), is stale. Returns what was removed."""
    removed: list[Path] = []
    root = Path(out_root) / "bundles"
    if not root.is_dir():
        return removed
    for tmp in sorted(root.glob(f"*/{TMP_PREFIX}*")):
        if tmp.is_symlink() or not tmp.is_dir():
            continue
        try:
            fd = os.open(tmp / _LOCK, os.O_RDWR | os.O_NOFOLLOW)
        except FileNotFoundError:
            try:
                stale = time.time() - tmp.stat().st_mtime > 60
            except OSError:
                continue
            if stale:
                shutil.rmtree(tmp, ignore_errors=True)
                removed.append(tmp)
            continue
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise
            continue  # a live writer
        else:
            shutil.rmtree(tmp, ignore_errors=True)
            removed.append(tmp)
        finally:
            os.close(fd)
    return removed


# --------------------------------------------------------------------------- reading

def _open_manifest(bundle_dir: Path) -> tuple[int, BinaryIO]:
    """(bundle directory fd, manifest.json opened without following links)."""
    bundle_dir = Path(bundle_dir)
    root = open_dir(bundle_dir, "bundle")
    try:
        fd = os.open("manifest.json", os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=root)
    except FileNotFoundError:
        os.close(root)
        raise FactforgeError("not a bundle: manifest.json is missing", bundle_dir) from None
    except OSError as e:
        os.close(root)
        if e.errno == errno.ELOOP:
            raise FactforgeError("manifest.json is a symbolic link; a bundle holds no links", bundle_dir) from None
        raise FactforgeError(f"cannot open manifest.json: {e.strerror}", bundle_dir) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        os.close(root)
        raise FactforgeError("manifest.json is not a regular file", bundle_dir)
    return root, os.fdopen(fd, "rb")


def load_manifest(bundle_dir: Path) -> Manifest:
    """The whole manifest as a model (for bundles of ordinary size: it is held in memory;
    `verify` streams instead). Refuses a linked manifest like `verify` does."""
    root, f = _open_manifest(Path(bundle_dir))
    os.close(root)
    p = Path(bundle_dir) / "manifest.json"
    with f:
        data = f.read()
    try:
        return Manifest.model_validate_json(data)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(x) for x in err["loc"])
        raise FactforgeError(f"invalid manifest: {where}: {err['msg']}", p) from None


class _Stream:
    """An incremental reader of one JSON document: values are decoded one at a time with
    `json`'s own decoder, so only the current value (at most MAX_VALUE_CHARS) and one read
    chunk are held. Duplicate keys, NaN and Infinity are refused."""

    def __init__(self, f: BinaryIO, name: str):
        self.f, self.name = f, name
        self.buf, self.pos, self.eof, self.lines_before = "", 0, False, 0
        self.dec = codecs.getincrementaldecoder("utf-8")("strict")
        self.digest = hashlib.sha256()  # of the bytes read: the two passes must read the same manifest
        self.scan = json.JSONDecoder(object_pairs_hook=self._pairs, parse_constant=self._constant).scan_once

    @staticmethod
    def _pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(items)
        if len(out) != len(items):
            seen: set[str] = set()
            dup = next(k for k, _ in items if k in seen or seen.add(k))
            raise ValueError(f"duplicate key {dup!r}")
        return out

    @staticmethod
    def _constant(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    def line(self) -> int:
        return self.lines_before + self.buf.count("\n", 0, self.pos) + 1

    def fail(self, problem: str) -> FactforgeError:
        return FactforgeError(f"invalid JSON: {problem}", self.name, self.line())

    def _fill(self) -> bool:
        if self.eof:
            return False
        data = self.f.read(_CHUNK)
        self.digest.update(data)
        try:
            text = self.dec.decode(data, final=not data)
        except UnicodeDecodeError:
            raise FactforgeError("not valid UTF-8", self.name, self.line()) from None
        if not data:
            self.eof = True
        if self.pos > _CHUNK:
            self.lines_before += self.buf.count("\n", 0, self.pos)
            self.buf, self.pos = self.buf[self.pos:], 0
        self.buf += text
        return True

    def peek(self) -> str:
        while True:
            self.pos = _WS.match(self.buf, self.pos).end()
            if self.pos < len(self.buf) or not self._fill():
                return self.buf[self.pos] if self.pos < len(self.buf) else ""

    def expect(self, ch: str, what: str) -> None:
        got = self.peek()
        if got != ch:
            raise self.fail(f"expected {ch!r} {what}, found {got or 'end of file'!r}")
        self.pos += 1

    def value(self, field: str) -> Any:
        self.pos = _WS.match(self.buf, self.pos).end()
        if self.pos == len(self.buf):
            self.peek()
        while True:
            try:
                try:
                    obj, end = self.scan(self.buf, self.pos)
                except StopIteration as stop:
                    raise json.JSONDecodeError("Expecting value", self.buf, stop.value) from None
            except json.JSONDecodeError as e:
                cut = e.pos >= len(self.buf) or e.msg.startswith("Unterminated string")
                if cut and len(self.buf) - self.pos <= MAX_VALUE_CHARS and self._fill():
                    continue
                if cut and not self.eof:
                    raise FactforgeError(f"{field}: value longer than {MAX_VALUE_CHARS} characters (refused)",
                                         self.name, self.line()) from None
                self.pos = min(e.pos, len(self.buf))
                raise self.fail(f"{field}: {e.msg}") from None
            except ValueError as e:
                raise self.fail(f"{field}: {e}") from None
            except RecursionError:
                raise self.fail(f"{field}: nested too deeply") from None
            if end == len(self.buf) and not self.eof and self._fill():
                continue  # a number may go on in the next chunk
            if end - self.pos > MAX_VALUE_CHARS:
                raise FactforgeError(f"{field}: value longer than {MAX_VALUE_CHARS} characters (refused)",
                                     self.name, self.line())
            self.pos = end
            return obj

    def items(self, close: str, what: str) -> Iterator[None]:
        """Yield once per element of an array or object whose opening bracket was consumed."""
        if self.peek() == close:
            self.pos += 1
            return
        while True:
            yield
            sep = self.peek()
            if sep == close:
                self.pos += 1
                return
            if sep != ",":
                raise self.fail(f"expected ',' or {close!r} in {what}, found {sep or 'end of file'!r}")
            self.pos += 1


def _read_manifest(f: BinaryIO, name: str, on_header: Callable[[str, Any], None],
                   on_file: Callable[[int, Any], None],
                   on_index: Optional[Callable[[str, int, Iterator[tuple[int, Any]]], None]]) -> tuple[set[str], bytes]:
    """Stream one manifest, calling back per header field, file entry and fact-index entry;
    returns the top-level keys seen and the sha256 of the bytes read."""
    s = _Stream(f, name)
    s.expect("{", "at the start of the manifest")
    seen: set[str] = set()
    for _ in s.items("}", "the manifest"):
        key = s.value("a manifest key")
        if not isinstance(key, str):
            raise s.fail("a manifest key must be a string")
        s.expect(":", f"after {key!r}")
        if key in seen:
            raise FactforgeError(f"{key}: the field appears twice", name, s.line())
        seen.add(key)
        if key == "files":
            s.expect("[", "(files must be a list)")
            for i, _ in enumerate(s.items("]", "files")):
                on_file(i, s.value(f"files[{i}]"))
        elif key == "fact_index":
            s.expect("{", "(fact_index must be an object)")
            for j, _ in enumerate(s.items("}", "fact_index")):
                fid = s.value("a fact_index key")
                s.expect(":", "after a fact_index key")
                if on_index is None:
                    s.value(f"fact_index[{fid!r}]")  # skipped whole (pass one checked it)
                    continue
                s.expect("[", f"(fact_index[{fid!r}] must be a list)")

                def paths(fid=fid) -> Iterator[tuple[int, Any]]:
                    for k, _ in enumerate(s.items("]", f"fact_index[{fid!r}]")):
                        yield k, s.value(f"fact_index[{fid!r}][{k}]")

                on_index(fid, j, paths())
        else:
            on_header(key, s.value(key))
    if s.peek() != "":
        raise s.fail("unexpected data after the manifest")
    return seen, s.digest.digest()


_VERSION = re.compile(r"^(?P<prefix>(?P<semver>\d+\.\d+\.\d+)\+(?:(?P<label>[a-z0-9_]+)\.)?)(?P<hash>[0-9a-f]{12})$")


@dataclass
class Verified:
    bundle_version: str
    files: int
    problems: int


def _field_error(field: str, e: ValidationError) -> FactforgeError:
    err = e.errors()[0]
    loc = ".".join(str(x) for x in err["loc"])
    where = f"{field}.{loc}" if loc else field
    got = err.get("input")
    got_text = f" (got {got!r:.80})" if err["type"] != "missing" and not isinstance(got, (dict, list)) else ""
    return FactforgeError(f"{where}: {err['msg'].lower()}{got_text}")


_ENTRY_KEYS = frozenset(FileEntry.model_fields)
_OPTIONAL = ("family", "kind", "artifact_id")


def _entry_line(i: int, value: Any) -> tuple[str, str, list[str]]:
    """(canonical JSON of a valid file entry, its path, its fact ids); FactforgeError naming
    the field otherwise. The common case is checked by hand (fast); anything unusual goes
    through the model for the exact message."""
    v = value
    if (type(v) is dict and v.keys() <= _ENTRY_KEYS and type(v.get("path")) is str
            and type(v.get("sha256")) is str and HEX64.fullmatch(v["sha256"])
            and type(v.get("size")) is int and v["size"] >= 0
            and all(v.get(k) is None or type(v[k]) is str for k in _OPTIONAL)
            and type(v.get("fact_ids", [])) is list and all(type(x) is str for x in v.get("fact_ids", []))):
        norm = {"artifact_id": v.get("artifact_id"), "fact_ids": v.get("fact_ids", []), "family": v.get("family"),
                "kind": v.get("kind"), "path": v["path"], "sha256": v["sha256"], "size": v["size"]}
    else:
        try:
            norm = FileEntry.model_validate(value).model_dump(mode="json")
        except ValidationError as ex:
            raise _field_error(f"files[{i}]", ex) from None
    why = path_problem(norm["path"])
    if why:
        raise FactforgeError(f"files[{i}].path: {norm['path']!r}: {why}")
    return canonical_json(norm), norm["path"], norm["fact_ids"]


def _pair(fid: str, path: str) -> int:
    """A fact id / path pair as a number: the sum of these over the files' fact_ids must equal
    the sum over the fact index (the two hold the same pairs), in constant memory."""
    return int.from_bytes(hashlib.sha256(f"{fid}\0{path}".encode("utf-8", "surrogatepass")).digest(), "big")


def _pass_one(f: BinaryIO, name: str) -> tuple[ManifestHeader, int, str, bytes]:
    """Validate every field, check order and uniqueness, check the fact index against the
    files, recompute the content hash. Returns the header, the number of files, the
    recomputed content hash and the sha256 of the manifest's bytes."""
    raw_header: dict[str, Any] = {}
    state = {"files": 0, "last": "", "last_fid": None, "pairs_files": 0, "pairs_index": 0}
    hasher = ManifestHasher()
    mod = 1 << 256

    def on_header(key: str, value: Any) -> None:
        if key not in ManifestHeader.model_fields:
            raise FactforgeError(f"{key}: unknown manifest field", name)
        raw_header[key] = value

    def on_file(i: int, value: Any) -> None:
        line, path, fact_ids = _entry_line(i, value)
        last = state["last"]
        if i and path <= last:
            raise FactforgeError(f"files[{i}].path: {path!r} is listed twice" if path == last else
                                 f"files[{i}].path: {path!r} is out of order (after {last!r}; entries are sorted)")
        state["last"] = path
        state["files"] += 1
        hasher.file_line(line)
        for fid in fact_ids:
            state["pairs_files"] = (state["pairs_files"] + _pair(fid, path)) % mod

    def on_index(fid: Any, j: int, paths: Iterator[tuple[int, Any]]) -> None:
        if not isinstance(fid, str):
            raise FactforgeError(f"fact_index: key #{j} is not a string")
        if state["last_fid"] is not None and fid <= state["last_fid"]:
            raise FactforgeError(f"fact_index[{fid!r}]: out of order or listed twice (keys are sorted)")
        state["last_fid"] = fid
        parts, size, acc = [], 0, state["pairs_index"]
        for k, p in paths:
            why = path_problem(p)
            if why:
                raise FactforgeError(f"fact_index[{fid!r}][{k}]: {p!r}: {why}")
            part = canonical_json(p)
            parts.append(part)
            size += len(part)
            if size > MAX_VALUE_CHARS:
                raise FactforgeError(f"fact_index[{fid!r}]: lists more than {MAX_VALUE_CHARS} characters of paths "
                                     "(refused)")
            acc += _pair(fid, p)
        state["pairs_index"] = acc % mod
        hasher.index_line("[" + canonical_json(fid) + ",[" + ",".join(parts) + "]]")

    try:
        present, digest_of_bytes = _read_manifest(f, name, on_header, on_file, on_index)
    except FactforgeError as e:
        raise FactforgeError(e.problem, e.file or name, e.line) from None
    for key in ("files", "fact_index"):
        if key not in present:
            raise FactforgeError(f"{key}: field required", name)
    try:
        header = ManifestHeader.model_validate(raw_header)
    except ValidationError as ex:
        raise FactforgeError(_field_error("manifest", ex).problem.removeprefix("manifest."), name) from None
    m = _VERSION.match(header.bundle_version)
    if not m:
        raise FactforgeError(f"bundle_version: {header.bundle_version!r} is not <semver>+<variant.><12 hex digits>",
                             name)
    if (m.group("label") or None) != header.variant:
        raise FactforgeError(f"bundle_version: {header.bundle_version!r} does not name the variant "
                             f"{header.variant!r}", name)
    if header.schema_version != BUNDLE_SCHEMA_VERSION:
        raise FactforgeError(f"schema_version: {header.schema_version!r} is not the version this factforge reads "
                             f"({BUNDLE_SCHEMA_VERSION}); rebuild the bundle", name)
    if state["pairs_files"] != state["pairs_index"]:
        raise FactforgeError("fact_index: does not match the fact_ids of the file entries", name)
    hdr = header.model_dump(mode="json", exclude={"content_hash"})
    hdr["bundle_version"] = m.group("prefix")
    digest = hasher.hexdigest(hdr)
    return header, state["files"], digest, digest_of_bytes


def verify(bundle_dir: Path, on_problem: Callable[[str], None]) -> Verified:
    """Verify a bundle, calling `on_problem` for each changed, missing, extra or linked file
    and for a manifest whose content hash does not match. Raises FactforgeError (one line)
    when the manifest itself is invalid; then no bundle file has been opened."""
    bundle_dir = Path(bundle_dir)
    name = str(bundle_dir / "manifest.json")
    root, f = _open_manifest(bundle_dir)
    try:
        with f:
            try:
                header, count, digest, read_first = _pass_one(f, name)
            except FactforgeError as e:
                raise FactforgeError(e.problem, e.file or name, e.line) from None
            f.seek(0)
            problems = 0

            def report(p: str) -> None:
                nonlocal problems
                problems += 1
                on_problem(p)

            tree = walk(root, "")
            cur = next(tree, None)

            def advance_past(path: Optional[str]) -> None:
                nonlocal cur
                while cur is not None and (path is None or cur[0] < path):
                    rel, kind = cur[0], cur[1]
                    if kind == "symlink":
                        report(f"symlink: {shown(rel)} (links are not allowed in a bundle; not followed)")
                    elif rel != "manifest.json":
                        report(f"extra: {shown(rel)} (not in manifest)" if kind == "file" else
                               f"extra: {shown(rel)} (not a regular file)")
                    cur = next(tree, None)

            def on_file(i: int, e: Any) -> None:  # checked in pass one (the bytes are compared below)
                nonlocal cur
                if type(e) is not dict or path_problem(e.get("path")) or type(e.get("size")) is not int:
                    raise FactforgeError("changed while being verified", name)
                path = e["path"]
                advance_past(path)
                if cur is None or cur[0] != path:
                    report(f"missing: {path}")
                    return
                rel, kind, dfd, fname = cur
                if kind == "symlink":
                    report(f"symlink: {rel} (links are not allowed in a bundle; not followed)")
                elif kind != "file":
                    report(f"changed: {rel} (not a regular file)")
                else:
                    sha = hash_file(dfd, fname, e["size"])
                    if sha != e["sha256"]:
                        report(f"changed: {rel} (sha256 differs from manifest)" if sha is not None else
                               f"changed: {rel} (size differs from manifest, or no longer a regular file)")
                cur = next(tree, None)

            _, read_again = _read_manifest(f, name, lambda k, v: None, on_file, None)
            advance_past(None)
            if read_again != read_first:
                report("changed: manifest.json (it changed while being verified)")
            elif digest != header.content_hash:
                report("changed: manifest.json (content hash does not match its fields)")
            elif not header.bundle_version.endswith(header.content_hash[:12]):
                report("changed: manifest.json (bundle_version does not end with the content hash)")
    finally:
        os.close(root)
    return Verified(bundle_version=header.bundle_version, files=count, problems=problems)


def verify_bundle(bundle_dir: Path) -> list[str]:
    """Problems found (empty list: the bundle is intact); see `verify`."""
    out: list[str] = []
    verify(Path(bundle_dir), out.append)
    return out
