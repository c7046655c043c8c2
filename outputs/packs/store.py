"""The pack layout on disk: a content-addressed release of tasks.

    PACK/
      index.json                 every task: id, domain, bundle, levers, hashes, sizes
      tasks/<task_id>/kit.json   the kit's manifest: [{path, sha256, size}] (what a developer gets)
      tasks/<task_id>/sealed.json  the sealed part's manifest (tests, gold, database, client, ...)
      objects/<sha[:2]>/<sha256> every file's bytes, stored once (tasks share their evidence)

`index.json` pins each manifest by the sha256 of its bytes; a manifest pins each file by
sha256 and size. The pack version is the first 16 hex digits of the sha256 of the index's
content (every field but the version itself, `index_version`), so any change of any file,
even with its manifest and the index re-pinned, is a new pack version; a pack whose stored
version is not the hash of its index is refused when it is loaded.

A pack is data, never instructions. Every manifest path follows the one path rule of
`outputs.paths.path_problem` (relative, no `..`, no control character, listed once, never
both a file and a folder); task ids are task ids and hashes are 64 hex digits. A manifest
that breaks a rule is refused (one line naming the task, part, field and reason) when it is
loaded, verified, materialized or exported, so nothing is ever written outside the folder a
part is materialized or exported to. The pack is read without following links: every path
component is opened with O_NOFOLLOW below the pack's own directory.

`verify` walks the pack through directory file descriptors without following links and
opens only what it found there, so it never opens a file outside the pack; it names every
changed, missing, misplaced or extra file, every extra (even empty) directory and every
link. `export_task` writes a part as a deterministic `.tar.gz` (sorted members, fixed mtime,
owner and modes; gzip without a timestamp): the same pack gives the same archive bytes.

A pack is written whole into a temporary sibling directory and swapped into place, so a
crash never leaves a half-written pack; objects of the previous pack are reused (re-hashed
first) so an unchanged rebuild copies nothing.

This module imports no Dagster and no media library: the evaluator and the API server read
packs through `Pack`.
"""
from __future__ import annotations

import errno
import gzip
import io
import json
import os
import re
import shutil
import stat
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Literal, Optional

from pydantic import Field, ValidationError, model_validator

from facts.errors import FactforgeError
from facts.hashing import file_sha256, sha256_hex
from facts.strict import StrictModel
from outputs.paths import HEX64, hash_file, open_dir, path_problem, shown, walk

from .spec import TASK_ID

PACK_SCHEMA_VERSION = "1.0"
Part = Literal["kit", "sealed"]
PARTS: tuple[Part, ...] = ("kit", "sealed")
ARCHIVE_MTIME = 1767225600  # 2026-01-01T00:00:00Z: every archive member carries this time
MANIFEST_NAME = "MANIFEST.json"  # a part's manifest inside its archive (no part lists a file of that name)
MAX_JSON_BYTES = 64 << 20         # index.json and a manifest are refused above this size
_SHA = r"^[0-9a-f]{64}$"
_ID = dict(pattern=TASK_ID.pattern, max_length=128)
_PREFIX = re.compile(r"[0-9a-f]{2}")
_NOFOLLOW_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_NOFOLLOW_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _check_schema(version: str) -> None:
    if version != PACK_SCHEMA_VERSION:
        raise ValueError(f"schema_version {version!r:.40} is not the pack schema this factforge reads "
                         f"({PACK_SCHEMA_VERSION}); rebuild the pack")


class FileRef(StrictModel):
    path: str
    sha256: str = Field(pattern=_SHA)
    size: int = Field(ge=0)


class PartManifest(StrictModel):
    schema_version: str = PACK_SCHEMA_VERSION
    task_id: str = Field(**_ID)
    part: Part
    files: list[FileRef]

    @model_validator(mode="after")
    def _paths(self) -> "PartManifest":
        """Every path follows the path rule, is listed once (in sorted order) and is not also
        a folder of another path."""
        _check_schema(self.schema_version)
        last: Optional[str] = None
        for i, f in enumerate(self.files):
            why = path_problem(f.path, (MANIFEST_NAME,))
            if why:
                raise ValueError(f"files[{i}].path: {f.path!r}: {why}")
            if last is not None and f.path <= last:
                raise ValueError(f"files[{i}].path: {f.path!r} is listed twice" if f.path == last else
                                 f"files[{i}].path: {f.path!r} is out of order (after {last!r}; entries are sorted)")
            last = f.path
        paths = {f.path for f in self.files}
        for i, f in enumerate(self.files):
            parts = f.path.split("/")
            for k in range(1, len(parts)):
                if "/".join(parts[:k]) in paths:
                    raise ValueError(f"files[{i}].path: {f.path!r}: {'/'.join(parts[:k])!r} is listed as a file")
        return self

    def get(self, path: str) -> FileRef:
        for f in self.files:
            if f.path == path:
                return f
        raise KeyError(path)


class TaskHashes(StrictModel):
    spec: str = Field(pattern=_SHA)                  # sha256 of the task's TOML file
    inputs: str = Field(pattern=_SHA)                # everything the task's build depends on (incremental builds key on it)
    kit: str = Field(pattern=_SHA)                   # sha256 of tasks/<id>/kit.json
    sealed: str = Field(pattern=_SHA)                # sha256 of tasks/<id>/sealed.json
    menu: str = Field(pattern=_SHA)                  # sha256 of the menu file
    phrasing: str = Field(pattern=_SHA)              # sha256 of the phrasing catalog
    deployment: Optional[str] = Field(pattern=_SHA)  # sha256 of the deployment file (None: the built-in clean deployment)


class PartSize(StrictModel):
    files: int = Field(ge=0)
    bytes: int = Field(ge=0)


class TaskEntry(StrictModel):
    id: str = Field(**_ID)
    domain: str
    bundle: str
    title: str
    levers: dict[str, Any]
    hashes: TaskHashes
    kit: PartSize
    sealed: PartSize


class PackIndex(StrictModel):
    schema_version: str = PACK_SCHEMA_VERSION
    pack_version: str = Field("", pattern=r"^(|[0-9a-f]{16})$")
    generator_version: str
    seed: int
    tasks: list[TaskEntry]
    summary: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _unique(self) -> "PackIndex":
        _check_schema(self.schema_version)
        seen: set[str] = set()
        for i, t in enumerate(self.tasks):
            if t.id in seen:
                raise ValueError(f"tasks[{i}].id: {t.id!r} is listed twice")
            seen.add(t.id)
        return self

    def task(self, task_id: str) -> TaskEntry:
        for t in self.tasks:
            if t.id == task_id:
                return t
        raise FactforgeError(f"no task {task_id!r} in this pack; tasks: "
                             f"{', '.join(t.id for t in self.tasks[:20])}{' ...' if len(self.tasks) > 20 else ''}")


def json_bytes(obj: Any) -> bytes:
    """The one serialisation of JSON files in a pack: sorted keys, 2-space indent, UTF-8."""
    if hasattr(obj, "model_dump"):
        obj = obj.model_dump(mode="json")
    return (json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def index_version(index: PackIndex) -> str:
    """The pack version: the sha256 of the index's content (every field but the version
    itself), first 16 hex digits. The index pins every manifest and a manifest every file, so
    a change of anything in the pack is a new version."""
    return sha256_hex(json_bytes(index.model_dump(mode="json", exclude={"pack_version"})))[:16]


def object_path(root: Path, sha: str) -> Path:
    return Path(root) / "objects" / sha[:2] / sha


def manifest_path(root: Path, task_id: str, part: Part) -> Path:
    return Path(root) / "tasks" / task_id / f"{part}.json"


def _validation_line(e: ValidationError) -> str:
    """The first problem of a validation error as one line: field, reason, the value given."""
    err = e.errors()[0]
    loc = "".join(f"[{x}]" if isinstance(x, int) else f".{x}" for x in err["loc"]).lstrip(".")
    msg = str(err["msg"]).removeprefix("Value error, ")
    got = err.get("input")
    got_text = (f" (got {got!r:.80})" if loc and err["type"] not in ("missing", "value_error")
                and not isinstance(got, (dict, list)) else "")
    return " ".join(f"{loc + ': ' if loc else ''}{msg}{got_text}".split())


# --------------------------------------------------------------------------- writing

class PackWriter:
    """Assembles a pack in a temporary directory beside `dest`; `commit` swaps it into place.
    Objects already present in the pack at `dest` are reused after re-hashing."""

    def __init__(self, dest: Path):
        self.dest = Path(dest).resolve()
        self.dest.parent.mkdir(parents=True, exist_ok=True)
        self.tmp = Path(tempfile.mkdtemp(prefix=f".{self.dest.name}.tmp-", dir=self.dest.parent))
        self._have: dict[str, int] = {}

    def _reuse(self, sha: str, size: int) -> bool:
        old = object_path(self.dest, sha)
        new = object_path(self.tmp, sha)
        if old.is_symlink() or not old.is_file() or old.stat().st_size != size or file_sha256(old) != sha:
            return False
        new.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(old, new)
        except OSError:
            shutil.copyfile(old, new)
        return True

    def put_bytes(self, data: bytes) -> FileRef:
        sha = sha256_hex(data)
        if sha not in self._have and not self._reuse(sha, len(data)):
            p = object_path(self.tmp, sha)
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        self._have[sha] = len(data)
        return FileRef(path="", sha256=sha, size=len(data))

    def put_file(self, src: Path, sha: Optional[str] = None) -> FileRef:
        src = Path(src)
        sha = sha or file_sha256(src)
        size = src.stat().st_size
        if sha not in self._have and not self._reuse(sha, size):
            p = object_path(self.tmp, sha)
            p.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, p)
            if file_sha256(p) != sha:
                raise FactforgeError(f"file changed while packing (sha256 differs from {sha[:12]})", src)
        self._have[sha] = size
        return FileRef(path="", sha256=sha, size=size)

    def write_part(self, task_id: str, part: Part, files: dict[str, FileRef]) -> tuple[str, PartSize]:
        """Write a part's manifest; returns (sha256 of the manifest, sizes)."""
        refs = [FileRef(path=p, sha256=r.sha256, size=r.size) for p, r in sorted(files.items())]
        try:
            man = PartManifest(task_id=task_id, part=part, files=refs)
        except ValidationError as e:
            raise FactforgeError(f"task {task_id}: {part} manifest: {_validation_line(e)}") from None
        data = json_bytes(man)
        p = manifest_path(self.tmp, task_id, part)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        return sha256_hex(data), PartSize(files=len(refs), bytes=sum(r.size for r in refs))

    def commit(self, index: PackIndex) -> Path:
        index.pack_version = index_version(index)
        (self.tmp / "index.json").write_bytes(json_bytes(index))
        old = None
        if self.dest.exists():
            if not (self.dest / "index.json").is_file() and any(self.dest.iterdir()):
                self.abort()
                raise FactforgeError("output directory exists and is not a pack (no index.json); "
                                     "refusing to replace it", self.dest)
            old = self.dest.with_name(f".{self.dest.name}.old-{os.getpid()}")
            os.replace(self.dest, old)
        os.replace(self.tmp, self.dest)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return self.dest

    def abort(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)


# --------------------------------------------------------------------------- reading without links

def _open_root(root: Path) -> int:
    """The pack's own directory (the one path taken as given)."""
    return open_dir(root, "task pack", os.O_CLOEXEC)


def _read_fd(fd: int, limit: Optional[int]) -> bytes:
    """The bytes of an opened file, which must be a regular file of at most `limit` bytes."""
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        if limit is None:
            return f.read()
        data = f.read(limit + 1) if st.st_size <= limit else b""
        if len(data) > limit or st.st_size > limit:
            raise OSError(errno.EFBIG, f"larger than {limit} bytes")
        return data


def _read_in(root_fd: int, rel: str, limit: Optional[int] = None) -> bytes:
    """The bytes of the regular file at `rel` below the pack directory `root_fd`, every
    component opened without following links. OSError otherwise (ELOOP: a link)."""
    parts = rel.split("/")
    opened: list[int] = []
    d = root_fd
    try:
        for name in parts[:-1]:
            d = os.open(name, _NOFOLLOW_DIR, dir_fd=d)
            opened.append(d)
        return _read_fd(os.open(parts[-1], _NOFOLLOW_READ, dir_fd=d), limit)
    finally:
        for fd in opened:
            os.close(fd)


def _read_error(rel: str, e: OSError) -> str:
    if e.errno == errno.ELOOP:
        return f"symlink: {rel} (or a folder on its way; links are not allowed in a pack and are not followed)"
    if e.errno == errno.ENOTDIR:
        return f"missing: {rel} (or a folder on its way is a link or a file; links are not followed)"
    if e.errno == errno.ENOENT:
        return f"missing: {rel}"
    return f"unreadable: {rel} ({e.strerror})"


def _parse_index(data: bytes, where: Path) -> PackIndex:
    try:
        return PackIndex.model_validate_json(data)
    except ValidationError as e:
        raise FactforgeError(f"invalid index: {_validation_line(e)}", where) from None


def _load_index(root_fd: int, root: Path) -> PackIndex:
    """index.json, validated (not its version: see `Pack`)."""
    try:
        data = _read_in(root_fd, "index.json", MAX_JSON_BYTES)
    except OSError as e:
        if e.errno == errno.ENOENT:
            raise FactforgeError("not a task pack: index.json is missing", root) from None
        raise FactforgeError(_read_error("index.json", e), root) from None
    return _parse_index(data, root / "index.json")


def _check_manifest(data: bytes, entry: TaskEntry, part: Part) -> tuple[Optional[PartManifest], Optional[str]]:
    """(the manifest, None), or (None, the problem) when its bytes are not the ones the index
    pins, it breaks a rule or it names another task or part."""
    rel = f"tasks/{entry.id}/{part}.json"
    if sha256_hex(data) != getattr(entry.hashes, part):
        return None, f"changed: {rel} (sha256 differs from index.json)"
    try:
        man = PartManifest.model_validate_json(data)
    except ValidationError as e:
        return None, f"invalid: {rel}: {_validation_line(e)}"
    if man.task_id != entry.id or man.part != part:
        return None, f"invalid: {rel}: it is the manifest of task {man.task_id!r} part {man.part!r}"
    return man, None


class Pack:
    """Read access to a built pack. Every read checks the bytes against the pinned hashes;
    nothing is read through a link."""

    def __init__(self, root: Path):
        self.root = Path(root)
        fd = _open_root(self.root)
        try:
            self.index = _load_index(fd, self.root)
        finally:
            os.close(fd)
        computed = index_version(self.index)
        if self.index.pack_version != computed:
            raise FactforgeError(f"pack_version {self.index.pack_version!r} is not the hash of the index's content "
                                 f"({computed}): index.json was edited after the pack was built",
                                 self.root / "index.json")
        self._manifests: dict[tuple[str, str], PartManifest] = {}

    @property
    def version(self) -> str:
        """The pack version (checked on load to be the hash of the index's content)."""
        return self.index.pack_version

    @property
    def tasks(self) -> list[TaskEntry]:
        return self.index.tasks

    def task(self, task_id: str) -> TaskEntry:
        return self.index.task(task_id)

    def _read(self, rel: str, limit: Optional[int] = None) -> bytes:
        fd = _open_root(self.root)
        try:
            return _read_in(fd, rel, limit)
        except OSError as e:
            raise FactforgeError(_read_error(rel, e), self.root) from None
        finally:
            os.close(fd)

    def manifest(self, task_id: str, part: Part) -> PartManifest:
        """A part's manifest, checked against the index. Both parts of a task are checked
        when either is first read, so a task with a hostile manifest is refused before any
        of its files is used."""
        if (task_id, part) not in self._manifests:
            entry = self.task(task_id)
            for p in PARTS:
                man, problem = _check_manifest(self._read(f"tasks/{entry.id}/{p}.json", MAX_JSON_BYTES), entry, p)
                if problem:
                    raise FactforgeError(problem, self.root)
                self._manifests[(task_id, p)] = man  # type: ignore[assignment]
        return self._manifests[(task_id, part)]

    def read(self, task_id: str, part: Part, path: str) -> bytes:
        try:
            ref = self.manifest(task_id, part).get(path)
        except KeyError:
            raise FactforgeError(f"task {task_id}: no {part} file {path!r}") from None
        data = self._read(f"objects/{ref.sha256[:2]}/{ref.sha256}")
        if len(data) != ref.size or sha256_hex(data) != ref.sha256:
            raise FactforgeError(f"changed: {part} file {path} of task {task_id} (sha256 differs)", self.root)
        return data

    def json(self, task_id: str, part: Part, path: str) -> Any:
        return json.loads(self.read(task_id, part, path))

    def has(self, task_id: str, part: Part, path: str) -> bool:
        return any(f.path == path for f in self.manifest(task_id, part).files)

    def materialize(self, task_id: str, part: Part, dest: Path) -> Path:
        """Write a part's files under `dest` (created; must be empty or absent). Every file
        is created below `dest` through directory file descriptors, with O_EXCL and O_NOFOLLOW:
        nothing is written anywhere else."""
        dest = Path(dest)
        man = self.manifest(task_id, part)
        if dest.exists() and any(dest.iterdir()):
            raise FactforgeError("destination is not empty", dest)
        dest.mkdir(parents=True, exist_ok=True)
        root = os.open(dest, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            for ref in man.files:
                _write_in(root, ref.path, self.read(task_id, part, ref.path), dest)
        finally:
            os.close(root)
        return dest


def _write_in(root_fd: int, rel: str, data: bytes, dest: Path) -> None:
    """Create the file `rel` (a path that passed the path rule) below the directory `root_fd`."""
    parts = rel.split("/")
    opened: list[int] = []
    d = root_fd
    try:
        for name in parts[:-1]:
            try:
                os.mkdir(name, 0o755, dir_fd=d)
            except FileExistsError:
                pass
            d = os.open(name, _NOFOLLOW_DIR, dir_fd=d)
            opened.append(d)
        fd = os.open(parts[-1], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=d)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
    except OSError as e:
        raise FactforgeError(f"cannot write {rel}: {e.strerror}", dest) from None
    finally:
        for fd in opened:
            os.close(fd)


# --------------------------------------------------------------------------- verify

@dataclass
class PackVerified:
    pack_version: str   # the hash of the index's content
    tasks: int
    files: int          # file entries of every manifest that could be checked
    problems: list[str]


def _tree(root_fd: int, name: str, problems: list[str]) -> Iterator[tuple[str, str, int, str]]:
    """`walk` of a top-level folder of the pack (dirs included); an empty folder below it is
    reported as extra (once: not when it was reported already as not part of the pack)."""
    try:
        fd = os.open(name, _NOFOLLOW_DIR, dir_fd=root_fd)
    except OSError as e:
        problems.append(_read_error(f"{name}/", e))
        return
    dirs: list[str] = []
    used: set[str] = set()
    try:
        for rel, kind, dfd, fname in walk(fd, name + "/", dirs=True):
            used.add(rel.rsplit("/", 1)[0])
            if kind == "dir":
                dirs.append(rel)
            yield rel, kind, dfd, fname
    finally:
        os.close(fd)
    named = {p.split(" (", 1)[0] for p in problems}
    for d in dirs:
        if d not in used and f"extra: {shown(d)}/" not in named:
            problems.append(f"extra: {shown(d)}/ (an empty directory)")


def _odd(rel: str, kind: str) -> str:
    """The problem of an entry of the tree that is not a regular file or a directory."""
    if kind == "symlink":
        return f"symlink: {shown(rel)} (links are not allowed in a pack; not followed)"
    return f"unreadable: {shown(rel)}/" if kind == "unreadable" else f"extra: {shown(rel)} (not a regular file)"


def verify(root: Path) -> PackVerified:
    """Verify a pack: every problem found (none: intact). The pack's tree is walked without
    following links and only files found in that walk are opened, so no file outside the
    pack is opened, whatever index.json and the manifests say. Raises FactforgeError (one
    line) when index.json cannot be read as a valid index; then nothing else was opened."""
    root = Path(root)
    fd = _open_root(root)
    try:
        return _verify(fd, root)
    finally:
        os.close(fd)


def _verify(fd: int, root: Path) -> PackVerified:
    index = _load_index(fd, root)
    problems: list[str] = []
    version = index_version(index)
    if index.pack_version != version:
        problems.append(f"changed: index.json (pack_version {index.pack_version!r} is not the hash of its content, "
                        f"{version}: edited after the build)")
    tops: dict[str, str] = {}
    with os.scandir(fd) as it:
        for de in it:
            tops[de.name] = ("symlink" if de.is_symlink() else "dir" if de.is_dir(follow_symlinks=False) else
                             "file" if de.is_file(follow_symlinks=False) else "special")
    expected = {"index.json": "file", "objects": "dir", "tasks": "dir"}
    for name, kind in sorted(tops.items()):
        if name not in expected:
            problems.append(_odd(name, kind) if kind in ("symlink", "special") else
                            f"extra: {shown(name)}{'/' if kind == 'dir' else ''} (not part of the pack)")
        elif kind != expected[name]:
            problems.append(_odd(name, kind) if kind == "symlink" else f"changed: {name} (not a "
                            f"{'directory' if expected[name] == 'dir' else 'regular file'})")
    unchecked: set[str] = set()
    manifests = _verify_tasks(fd, index, tops.get("tasks") == "dir", problems, unchecked)
    referenced: dict[str, list[tuple[str, Part, FileRef]]] = {}
    for (tid, part), man in manifests.items():
        for ref in man.files:
            referenced.setdefault(ref.sha256, []).append((tid, part, ref))
    _verify_objects(fd, referenced, unchecked, tops.get("objects") == "dir", problems)
    return PackVerified(pack_version=version, tasks=len(index.tasks),
                        files=sum(len(m.files) for m in manifests.values()), problems=problems)


def _named_objects(data: bytes) -> set[str]:
    """The sha256 values a manifest that failed its checks names (its objects are not
    reported again as extra)."""
    try:
        files = json.loads(data).get("files")
        return {f["sha256"] for f in files if isinstance(f.get("sha256"), str) and HEX64.fullmatch(f["sha256"])}
    except (ValueError, AttributeError, TypeError, RecursionError):
        return set()


def _verify_tasks(fd: int, index: PackIndex, present: bool, problems: list[str],
                  unchecked: set[str]) -> dict[tuple[str, Part], PartManifest]:
    """The manifests under tasks/ that match the index; every other entry there is reported.
    `unchecked` receives the objects named by manifests that failed their checks."""
    entries = {t.id: t for t in index.tasks}
    found: dict[tuple[str, Part], PartManifest] = {}
    seen: set[tuple[str, str]] = set()
    for rel, kind, dfd, name in (_tree(fd, "tasks", problems) if present else ()):
        parts = rel.split("/")
        if kind == "dir" and len(parts) == 2 and parts[1] in entries:
            continue
        if kind == "file" and len(parts) == 3 and parts[1] in entries and parts[2] in ("kit.json", "sealed.json"):
            part: Part = "kit" if parts[2] == "kit.json" else "sealed"
            seen.add((parts[1], part))
            try:
                data = _read_fd(os.open(name, _NOFOLLOW_READ, dir_fd=dfd), MAX_JSON_BYTES)
            except OSError as e:
                problems.append(_read_error(rel, e))
                continue
            man, problem = _check_manifest(data, entries[parts[1]], part)
            if problem:
                problems.append(problem)
                unchecked.update(_named_objects(data))
            else:
                found[(parts[1], part)] = man  # type: ignore[assignment]
        elif kind == "dir":
            problems.append(f"extra: {shown(rel)}/ (a directory that is not part of the pack)")
        elif kind == "file":
            problems.append(f"extra: {shown(rel)} (not part of the pack)")
        else:
            problems.append(_odd(rel, kind))
    for t in index.tasks:
        for part in PARTS:
            if (t.id, part) not in seen:
                problems.append(f"missing: tasks/{t.id}/{part}.json")
    return found


def _verify_objects(fd: int, referenced: dict[str, list[tuple[str, Part, FileRef]]], unchecked: set[str],
                    present: bool, problems: list[str]) -> None:
    """Hash every referenced object where it belongs; report the others (but those of
    `unchecked` in their place: their manifest is reported already)."""
    found: set[str] = set()
    for rel, kind, dfd, name in (_tree(fd, "objects", problems) if present else ()):
        parts = rel.split("/")
        if kind == "dir":
            if not (len(parts) == 2 and _PREFIX.fullmatch(parts[1])):
                problems.append(f"extra: {shown(rel)}/ (a directory that is not part of the pack)")
        elif kind != "file":
            problems.append(_odd(rel, kind))
        elif len(parts) == 3 and name in unchecked and name not in referenced and parts[1] == name[:2]:
            continue
        elif len(parts) != 3 or not HEX64.fullmatch(name) or name not in referenced:
            problems.append(f"extra: {shown(rel)} (referenced by no manifest)")
        elif parts[1] != name[:2]:
            problems.append(f"misplaced: {rel} (an object belongs under objects/{name[:2]}/)")
        else:
            found.add(name)
            refs = referenced[name]
            sha = hash_file(dfd, name, refs[0][2].size)
            for tid, part, ref in refs:
                if ref.size != refs[0][2].size or sha != name:
                    problems.append(f"changed: task {tid} {part} file {ref.path} (sha256 differs from the manifest)")
    missing = [sha for sha in referenced if sha not in found]
    if not present and missing:
        problems.append(f"missing: objects/ ({len(missing)} referenced objects not checked)")
        return
    for sha in missing:
        for tid, part, ref in referenced[sha]:
            problems.append(f"missing: task {tid} {part} file {ref.path} (objects/{sha[:2]}/{sha})")


def verify_pack(root: Path) -> list[str]:
    """Problems found (empty: intact); see `verify`."""
    return verify(Path(root)).problems


# --------------------------------------------------------------------------- export

def _tar_gz(members: list[tuple[str, bytes]]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        dirs: set[str] = set()
        for path, data in sorted(members):
            why = path_problem(path, ())
            if why:
                raise FactforgeError(f"archive member {path!r}: {why}")
            parts = path.split("/")
            for i in range(1, len(parts)):
                d = "/".join(parts[:i])
                if d not in dirs:
                    dirs.add(d)
                    ti = tarfile.TarInfo(d)
                    ti.type, ti.mode, ti.mtime = tarfile.DIRTYPE, 0o755, ARCHIVE_MTIME
                    tar.addfile(ti)
            ti = tarfile.TarInfo(path)
            ti.size, ti.mode, ti.mtime = len(data), 0o644, ARCHIVE_MTIME
            tar.addfile(ti, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=6, mtime=0, filename="") as gz:
        gz.write(raw.getvalue())
    return out.getvalue()


def export_task(pack: Pack, task_id: str, out_dir: Path) -> dict[str, Path]:
    """Write `<out>/<task_id>/kit.tar.gz` and `sealed.tar.gz` (each holds its manifest as
    `MANIFEST.json`). Returns the archive paths by part. Both manifests are checked (paths,
    ids) before anything is written."""
    entry = pack.task(task_id)
    mans = {part: pack.manifest(entry.id, part) for part in PARTS}
    out: dict[str, Path] = {}
    dest = Path(out_dir) / entry.id
    dest.mkdir(parents=True, exist_ok=True)
    for part in PARTS:
        man = mans[part]
        members = [(ref.path, pack.read(entry.id, part, ref.path)) for ref in man.files]
        members.append((MANIFEST_NAME, json_bytes(man)))
        target = dest / f"{part}.tar.gz"
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=dest)
        with os.fdopen(fd, "wb") as fh:
            fh.write(_tar_gz(members))
        os.replace(tmp, target)
        out[part] = target
    return out
