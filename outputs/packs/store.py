"""The pack layout on disk: a content-addressed release of tasks.

    PACK/
      index.json                 every task: id, domain, bundle, levers, hashes, sizes
      tasks/<task_id>/kit.json   the kit's manifest: [{path, sha256, size}] (what a developer gets)
      tasks/<task_id>/sealed.json  the sealed part's manifest (tests, gold, database, client, ...)
      objects/<sha[:2]>/<sha256> every file's bytes, stored once (tasks share their evidence)

`index.json` pins each manifest by the sha256 of its bytes; a manifest pins each file by
sha256 and size. `verify_pack` recomputes all of it and names the task, part and path of
anything changed, missing or extra. `export_task` writes a part as a deterministic
`.tar.gz` (sorted members, fixed mtime, owner and modes; gzip without a timestamp): the same
pack gives the same archive bytes.

A pack is written whole into a temporary sibling directory and swapped into place, so a
crash never leaves a half-written pack; objects of the previous pack are reused (re-hashed
first) so an unchanged rebuild copies nothing.

This module imports no Dagster and no media library: the evaluator and the API server read
packs through `Pack`.
"""
from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import tarfile
import tempfile
from pathlib import Path
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from facts.errors import FactforgeError
from facts.hashing import file_sha256, sha256_hex

PACK_SCHEMA_VERSION = "1.0"
Part = Literal["kit", "sealed"]
PARTS: tuple[Part, ...] = ("kit", "sealed")
ARCHIVE_MTIME = 1767225600  # 2026-01-01T00:00:00Z: every archive member carries this time


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FileRef(_Strict):
    path: str
    sha256: str
    size: int


class PartManifest(_Strict):
    schema_version: str = PACK_SCHEMA_VERSION
    task_id: str
    part: Part
    files: list[FileRef]

    def get(self, path: str) -> FileRef:
        for f in self.files:
            if f.path == path:
                return f
        raise KeyError(path)


class TaskHashes(_Strict):
    spec: str                 # sha256 of the task's TOML file
    inputs: str               # everything the task's build depends on (incremental builds key on it)
    kit: str                  # sha256 of tasks/<id>/kit.json
    sealed: str               # sha256 of tasks/<id>/sealed.json
    menu: str                 # sha256 of the menu file
    phrasing: str             # sha256 of the phrasing catalog
    deployment: Optional[str]  # sha256 of the deployment file (None: the built-in clean deployment)


class PartSize(_Strict):
    files: int
    bytes: int


class TaskEntry(_Strict):
    id: str
    domain: str
    bundle: str
    title: str
    levers: dict[str, Any]
    hashes: TaskHashes
    kit: PartSize
    sealed: PartSize


class PackIndex(_Strict):
    schema_version: str = PACK_SCHEMA_VERSION
    pack_version: str = ""
    generator_version: str
    seed: int
    tasks: list[TaskEntry]
    summary: dict[str, Any] = Field(default_factory=dict)

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


def object_path(root: Path, sha: str) -> Path:
    return Path(root) / "objects" / sha[:2] / sha


def manifest_path(root: Path, task_id: str, part: Part) -> Path:
    return Path(root) / "tasks" / task_id / f"{part}.json"


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
        if not old.is_file() or old.stat().st_size != size or file_sha256(old) != sha:
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
        data = json_bytes(PartManifest(task_id=task_id, part=part, files=refs))
        p = manifest_path(self.tmp, task_id, part)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        return sha256_hex(data), PartSize(files=len(refs), bytes=sum(r.size for r in refs))

    def commit(self, index: PackIndex) -> Path:
        index.pack_version = sha256_hex(json_bytes(index.model_dump(mode="json", exclude={"pack_version"})))[:16]
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


# --------------------------------------------------------------------------- reading

class Pack:
    """Read access to a built pack. Every read checks the bytes against the pinned hashes."""

    def __init__(self, root: Path):
        self.root = Path(root)
        p = self.root / "index.json"
        if not p.is_file():
            raise FactforgeError("not a task pack: index.json is missing", self.root)
        try:
            self.index = PackIndex.model_validate_json(p.read_bytes())
        except ValidationError as e:
            raise FactforgeError(f"invalid index: {str(e).splitlines()[0]}", p) from None
        self._manifests: dict[tuple[str, str], PartManifest] = {}

    @property
    def tasks(self) -> list[TaskEntry]:
        return self.index.tasks

    def task(self, task_id: str) -> TaskEntry:
        return self.index.task(task_id)

    def manifest(self, task_id: str, part: Part) -> PartManifest:
        key = (task_id, part)
        if key not in self._manifests:
            entry = self.task(task_id)
            p = manifest_path(self.root, task_id, part)
            if not p.is_file():
                raise FactforgeError(f"missing: {p.relative_to(self.root)}", self.root)
            data = p.read_bytes()
            if sha256_hex(data) != getattr(entry.hashes, part):
                raise FactforgeError(f"changed: {p.relative_to(self.root)} (sha256 differs from index.json)", self.root)
            self._manifests[key] = PartManifest.model_validate_json(data)
        return self._manifests[key]

    def read(self, task_id: str, part: Part, path: str) -> bytes:
        try:
            ref = self.manifest(task_id, part).get(path)
        except KeyError:
            raise FactforgeError(f"task {task_id}: no {part} file {path!r}") from None
        data = object_path(self.root, ref.sha256).read_bytes()
        if sha256_hex(data) != ref.sha256:
            raise FactforgeError(f"changed: {part} file {path} of task {task_id} (sha256 differs)", self.root)
        return data

    def json(self, task_id: str, part: Part, path: str) -> Any:
        return json.loads(self.read(task_id, part, path))

    def has(self, task_id: str, part: Part, path: str) -> bool:
        return any(f.path == path for f in self.manifest(task_id, part).files)

    def materialize(self, task_id: str, part: Part, dest: Path) -> Path:
        """Write a part's files under `dest` (created; must be empty or absent)."""
        dest = Path(dest)
        if dest.exists() and any(dest.iterdir()):
            raise FactforgeError("destination is not empty", dest)
        for ref in self.manifest(task_id, part).files:
            out = dest / ref.path
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(self.read(task_id, part, ref.path))
        return dest


# --------------------------------------------------------------------------- verify

def verify_pack(root: Path) -> list[str]:
    """Problems found (empty: intact). Names the task, part and path of every changed,
    missing or extra file, and every manifest that differs from the index."""
    root = Path(root)
    pack = Pack(root)
    problems: list[str] = []
    referenced: dict[str, list[str]] = {}
    for t in pack.tasks:
        for part in PARTS:
            p = manifest_path(root, t.id, part)
            if not p.is_file():
                problems.append(f"missing: tasks/{t.id}/{part}.json")
                continue
            data = p.read_bytes()
            if sha256_hex(data) != getattr(t.hashes, part):
                problems.append(f"changed: tasks/{t.id}/{part}.json (sha256 differs from index.json)")
                continue
            man = PartManifest.model_validate_json(data)
            for ref in man.files:
                referenced.setdefault(ref.sha256, []).append(f"{t.id} {part}/{ref.path}")
                o = object_path(root, ref.sha256)
                if not o.is_file():
                    problems.append(f"missing: task {t.id} {part} file {ref.path} (objects/{ref.sha256[:2]}/{ref.sha256})")
                elif o.stat().st_size != ref.size or file_sha256(o) != ref.sha256:
                    problems.append(f"changed: task {t.id} {part} file {ref.path} (sha256 differs from the manifest)")
    ids = {t.id for t in pack.tasks}
    for p in sorted((root / "objects").rglob("*")) if (root / "objects").is_dir() else []:
        if p.is_file() and p.name not in referenced:
            problems.append(f"extra: {p.relative_to(root).as_posix()} (referenced by no manifest)")
    for p in sorted((root / "tasks").rglob("*")) if (root / "tasks").is_dir() else []:
        rel = p.relative_to(root / "tasks").parts
        if p.is_file() and not (len(rel) == 2 and rel[0] in ids and rel[1] in ("kit.json", "sealed.json")):
            problems.append(f"extra: tasks/{'/'.join(rel)} (not part of the pack)")
    for p in sorted(root.iterdir()):
        if p.name not in ("index.json", "objects", "tasks"):
            problems.append(f"extra: {p.name} (not part of the pack)")
    return problems


# --------------------------------------------------------------------------- export

def _tar_gz(members: list[tuple[str, bytes]]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        dirs: set[str] = set()
        for path, data in sorted(members):
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
    `MANIFEST.json`). Returns the archive paths by part."""
    out: dict[str, Path] = {}
    dest = Path(out_dir) / task_id
    dest.mkdir(parents=True, exist_ok=True)
    for part in PARTS:
        man = pack.manifest(task_id, part)
        members = [(ref.path, pack.read(task_id, part, ref.path)) for ref in man.files]
        members.append(("MANIFEST.json", json_bytes(man)))
        target = dest / f"{part}.tar.gz"
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=dest)
        with os.fdopen(fd, "wb") as fh:
            fh.write(_tar_gz(members))
        os.replace(tmp, target)
        out[part] = target
    return out
