"""Packs are data, never instructions: hostile packs, each made by a fixture from one `_mock`
pack (built once per module, copied, tampered with, and re-pinned the way an attacker
would: every manifest's sha256 written back into index.json and the pack version
recomputed).

- A kit manifest listing `../../...` and absolute paths: `pack verify` refuses, `eval
  --agent null` refuses with one line and writes nothing, `pack export` refuses.
- `pack verify` on an object moved out and symlinked back, `objects/` or `index.json`
  symlinked, a manifest sha256 that is a path, a task id `../../outside`, gold changed with
  the manifests and the index re-pinned, extra (empty) directories, an object under the
  wrong prefix: each is reported, and verify never opens a file outside the pack (an audit
  hook on every `open`, strace where available, and FIFO canaries outside the pack that
  would hang an open).
- Re-pinned content is a new pack version; `eval` prints the version it scored.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Callable

import pytest

from facts.errors import FactforgeError
from facts.hashing import sha256_hex

from .conftest import snapshot

ROOT = Path(__file__).resolve().parents[1]
TASK = "_mock-records-only"


# --------------------------------------------------------------------------- the pack and its tampering

@pytest.fixture(scope="module")
def built(tmp_path_factory, mock_task_ws_copy) -> Path:
    """A pack of the one task, built through a warm workspace (the run's `_mock` renders)."""
    from outputs.packs.build import BuildOptions, build_pack
    out = tmp_path_factory.mktemp("integrity") / "pack"
    path, _, _ = build_pack(out, ["_mock"], [TASK], opts=BuildOptions(seed=0, workspace=mock_task_ws_copy))
    return path


@pytest.fixture()
def site(built, tmp_path) -> tuple[Path, Path]:
    """(a fresh copy of the pack, a folder beside it that must stay untouched). The folder
    holds a FIFO: opening it (for reading) would block."""
    copy = tmp_path / "site" / "pack"
    shutil.copytree(built, copy, symlinks=True)
    outside = tmp_path / "site" / "outside"
    outside.mkdir()
    os.mkfifo(outside / "fifo")
    return copy, outside


def _json(p: Path):
    return json.loads(p.read_bytes())


def _write_json(p: Path, obj) -> None:
    from outputs.packs.store import json_bytes
    p.write_bytes(json_bytes(obj))


def repin(root: Path, version: bool = True) -> None:
    """What an attacker does after editing a manifest: write each manifest's sha256 into
    index.json and (unless `version` is False) recompute the pack version over the index."""
    from outputs.packs.store import json_bytes
    idx = _json(root / "index.json")
    for t in idx["tasks"]:
        for part in ("kit", "sealed"):
            p = root / "tasks" / t["id"] / f"{part}.json"
            if p.is_file() and not p.is_symlink():
                t["hashes"][part] = sha256_hex(p.read_bytes())
    if version:
        idx["pack_version"] = sha256_hex(json_bytes({k: v for k, v in idx.items() if k != "pack_version"}))[:16]
    _write_json(root / "index.json", idx)


def edit_manifest(root: Path, part: str, edit: Callable[[list], None], task: str = TASK) -> None:
    p = root / "tasks" / task / f"{part}.json"
    man = _json(p)
    edit(man["files"])
    _write_json(p, man)


def put_object(root: Path, data: bytes) -> tuple[str, int]:
    sha = sha256_hex(data)
    p = root / "objects" / sha[:2] / sha
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data)
    return sha, len(data)


def a_ref(root: Path, part: str, path: str, task: str = TASK) -> dict:
    return next(f for f in _json(root / "tasks" / task / f"{part}.json")["files"] if f["path"] == path)


def cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT)})


def refused(r: subprocess.CompletedProcess) -> str:
    """stderr of a command that refused: non-zero exit, no traceback, one problem a line."""
    assert r.returncode != 0, r.stdout + r.stderr
    assert "Traceback" not in r.stderr and r.stderr.strip(), r.stderr
    return r.stderr


def one_line_error(r: subprocess.CompletedProcess) -> str:
    assert r.returncode != 0, r.stdout + r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, r.stderr
    return lines[0]


# --------------------------------------------------------------------------- verify, audited

AUDIT = r"""
import json, os, sys
sys.path.insert(0, {root!r})
from facts.errors import FactforgeError
from outputs.packs.store import verify

def run():
    try:
        return verify(sys.argv[1]).problems
    except FactforgeError as e:
        return "error: " + e.render()

run()  # every import done before the hook is installed
opens = []
sys.addaudithook(lambda ev, a: opens.append([a[0] if isinstance(a[0], (str, int)) else repr(a[0]), a[2]])
                 if ev == "open" else None)
out = run()
print(json.dumps({{"opens": opens, "result": out}}))
"""


def audited_verify(pack: Path) -> list[str] | str:
    """`verify` in a child process under an audit hook on every `open`: each path opened is
    either the pack directory as given or one name (no '/', no '..') opened with O_NOFOLLOW
    below a directory opened the same way, so nothing outside the pack can be reached. A
    FIFO opened anywhere would block: the timeout stops that. Returns the problems, or the
    one-line error as "error: ..."."""
    r = subprocess.run([sys.executable, "-c", AUDIT.format(root=str(ROOT)), str(pack)], capture_output=True,
                       text=True, timeout=120, cwd=pack.parent)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    for path, flags in got["opens"]:
        if isinstance(path, int):  # os.fdopen of a descriptor already opened below
            continue
        if path == str(pack):
            continue
        assert "/" not in path and path not in ("..", "."), f"opened {path!r}"
        assert flags & os.O_NOFOLLOW, f"opened {path!r} following links"
    assert got["opens"], "the audit hook saw nothing"
    return got["result"]


def strace_verify(pack: Path) -> list[str]:
    """The openat calls of `pack verify` between two markers (strace), as (dirfd, path, flags)."""
    log = pack.parent / "strace.log"
    code = ("import os, sys\nfrom outputs.packs.store import verify\n"
            "def m(p):\n    try: os.open(p, 0)\n    except OSError: pass\n"
            "try: verify(sys.argv[1])\nexcept Exception: pass\n"
            "m('/nonexistent-ff-begin')\ntry: verify(sys.argv[1])\nexcept Exception: pass\nm('/nonexistent-ff-end')\n")
    r = subprocess.run(["strace", "-f", "-e", "trace=openat,open,openat2", "-o", str(log), sys.executable, "-c", code,
                        str(pack)], capture_output=True, text=True, timeout=120, cwd=ROOT)
    if r.returncode != 0 or not log.exists():
        pytest.skip(f"strace cannot trace here: {r.stderr.strip()[:80]}")
    text = log.read_text()
    calls = text.split("/nonexistent-ff-begin", 1)[1].split("/nonexistent-ff-end", 1)[0].splitlines()[1:-1]
    return [ln for ln in calls if "open" in ln]


# --------------------------------------------------------------------------- row 1: paths leaving the kit

def hostile_kit(root: Path, canary: Path) -> None:
    """The kit manifest lists `../../...` (enough to reach `/` from anywhere) and an absolute
    path, both into `canary`; index re-pinned, version recomputed."""
    ref = a_ref(root, "kit", "README.md")
    rel = "../" * 40 + str(canary / "PWNED.txt").lstrip("/")

    def edit(files):
        files += [{**ref, "path": rel}, {**ref, "path": str(canary / "PWNED_ABS.txt")}]
        files.sort(key=lambda f: f["path"])
    edit_manifest(root, "kit", edit)
    repin(root)


@pytest.mark.slow
def test_kit_paths_leaving_the_kit_are_refused_by_verify_eval_and_export(site, tmp_path):
    pack, outside = site
    canary = tmp_path / "x"
    canary.mkdir()
    hostile_kit(pack, canary)
    work = tmp_path / "cwd"
    work.mkdir()
    before = snapshot(tmp_path / "site", canary, work)

    err = refused(cli("pack", "verify", str(pack)))
    assert f"invalid: tasks/{TASK}/kit.json: files[0].path: " in err and "'..' is not allowed" in err
    assert len(err.splitlines()) == 2, err  # the problem and the count

    out = tmp_path / "eval-out"
    line = one_line_error(cli("eval", str(pack), "--task", TASK, "--agent", "null", "--out", str(out), cwd=work))
    assert "'..' is not allowed" in line
    assert not (canary / "PWNED.txt").exists() and not (canary / "PWNED_ABS.txt").exists()
    assert not out.exists() or not any(out.iterdir())

    exp = tmp_path / "export"
    line = one_line_error(cli("pack", "export", str(pack), "--out", str(exp)))
    assert "'..' is not allowed" in line
    for archive in exp.rglob("*.tar.gz") if exp.exists() else []:
        with tarfile.open(archive) as t:
            assert not any(n.startswith("/") or ".." in n.split("/") for n in t.getnames())

    assert audited_verify(pack) and not list(canary.iterdir())
    assert snapshot(tmp_path / "site", canary, work) == before


def test_absolute_kit_path_alone_is_refused_when_loaded_materialized_and_exported(site, tmp_path):
    from outputs.packs.store import Pack, export_task
    pack, _ = site
    canary = tmp_path / "x"
    canary.mkdir()
    ref = a_ref(pack, "kit", "README.md")

    def edit(files):
        files.insert(0, {**ref, "path": str(canary / "PWNED_ABS.txt")})
    edit_manifest(pack, "kit", edit)
    repin(pack)
    p = Pack(pack)
    for attempt in (lambda: p.manifest(TASK, "sealed"), lambda: p.materialize(TASK, "kit", tmp_path / "kit"),
                    lambda: export_task(p, TASK, tmp_path / "export")):
        with pytest.raises(FactforgeError, match="an absolute path is not allowed") as e:
            attempt()
        assert "\n" not in e.value.render()
    assert not list(canary.iterdir()) and not (tmp_path / "export").exists()


@pytest.mark.parametrize("path,why", [("evidence\\..\\..\\x", "backslash"), ("a\x00b", "control"),
                                      ("README.md", "listed twice"), ("README.md/inner", "listed as a file"),
                                      ("MANIFEST.json", "cannot list itself"), ("./README.md", "'.' parts")])
def test_every_manifest_path_rule_is_applied_to_packs(site, path, why):
    from outputs.packs.store import Pack, verify_pack
    pack, _ = site
    ref = a_ref(pack, "kit", "README.md")

    def edit(files):
        files.append({**ref, "path": path})
        files.sort(key=lambda f: f["path"])
    edit_manifest(pack, "kit", edit)
    repin(pack)
    problems = verify_pack(pack)
    assert len(problems) == 1 and problems[0].startswith(f"invalid: tasks/{TASK}/kit.json: files[") and why in problems[0]
    with pytest.raises(FactforgeError, match=re.escape(why)):
        Pack(pack).read(TASK, "sealed", "task.json")


def test_materialize_writes_only_below_its_destination(site, tmp_path):
    """Even a destination that holds a link cannot redirect a write: files are created with
    O_EXCL and O_NOFOLLOW through directory descriptors."""
    from outputs.packs.store import Pack
    pack, outside = site
    p = Pack(pack)
    dest = p.materialize(TASK, "kit", tmp_path / "kit")
    assert {f.path for f in p.manifest(TASK, "kit").files} == {
        str(q.relative_to(dest)) for q in dest.rglob("*") if q.is_file()}
    assert (dest / "README.md").read_bytes() == p.read(TASK, "kit", "README.md")
    with pytest.raises(FactforgeError, match="destination is not empty"):
        p.materialize(TASK, "kit", dest)


# --------------------------------------------------------------------------- row 11: verify on tampered packs

def _moved_object_linked_back(pack: Path, outside: Path) -> str:
    ref = a_ref(pack, "sealed", "tests.json")
    obj = pack / "objects" / ref["sha256"][:2] / ref["sha256"]
    shutil.move(obj, outside / ref["sha256"])
    obj.symlink_to(outside / ref["sha256"])
    return f"symlink: objects/{ref['sha256'][:2]}/{ref['sha256']}"


def _object_linked_to_fifo(pack: Path, outside: Path) -> str:
    ref = a_ref(pack, "sealed", "db.json")
    obj = pack / "objects" / ref["sha256"][:2] / ref["sha256"]
    obj.unlink()
    obj.symlink_to(outside / "fifo")
    return f"symlink: objects/{ref['sha256'][:2]}/{ref['sha256']}"


def _objects_dir_linked(pack: Path, outside: Path) -> str:
    shutil.move(pack / "objects", outside / "objects")
    (pack / "objects").symlink_to(outside / "objects")
    return "symlink: objects (links are not allowed in a pack; not followed)"


def _tasks_dir_linked(pack: Path, outside: Path) -> str:
    shutil.move(pack / "tasks", outside / "tasks")
    (pack / "tasks").symlink_to(outside / "tasks")
    return "symlink: tasks (links are not allowed in a pack; not followed)"


def _manifest_linked(pack: Path, outside: Path) -> str:
    m = pack / "tasks" / TASK / "sealed.json"
    shutil.move(m, outside / "sealed.json")
    m.symlink_to(outside / "sealed.json")
    return f"symlink: tasks/{TASK}/sealed.json"


def _sha_is_a_path(pack: Path, outside: Path) -> str:
    def edit(files):
        next(f for f in files if f["path"] == "db.json")["sha256"] = "../../../etc/hostname"
    edit_manifest(pack, "sealed", edit)
    repin(pack)
    return f"invalid: tasks/{TASK}/sealed.json: files["


def _unused_prefix(pack: Path) -> str:
    return next(p for p in (f"{i:02x}" for i in range(256)) if not (pack / "objects" / p).exists())


def _extra_directories(pack: Path, outside: Path) -> str:
    (pack / "objects" / "zz").mkdir()
    (pack / "objects" / _unused_prefix(pack)).mkdir()
    (pack / "tasks" / TASK / "more").mkdir()
    (pack / "junk").mkdir()
    return "extra: objects/zz/"


def _wrong_prefix(pack: Path, outside: Path) -> str:
    ref = a_ref(pack, "kit", "README.md")
    sha = ref["sha256"]
    wrong = "00" if not sha.startswith("00") else "01"
    (pack / "objects" / wrong).mkdir(exist_ok=True)
    shutil.move(pack / "objects" / sha[:2] / sha, pack / "objects" / wrong / sha)
    return f"misplaced: objects/{wrong}/{sha} (an object belongs under objects/{sha[:2]}/)"


TAMPERINGS = {"object moved out and linked back": _moved_object_linked_back,
              "object linked to a FIFO outside": _object_linked_to_fifo,
              "objects/ linked": _objects_dir_linked, "tasks/ linked": _tasks_dir_linked,
              "manifest linked": _manifest_linked, "manifest sha256 is a path": _sha_is_a_path,
              "extra empty directories": _extra_directories, "object under the wrong prefix": _wrong_prefix}


@pytest.mark.parametrize("name", list(TAMPERINGS))
def test_verify_reports_each_tampering_without_opening_outside_the_pack(site, name):
    pack, outside = site
    expected = TAMPERINGS[name](pack, outside)
    before = snapshot(outside)
    problems = audited_verify(pack)
    assert isinstance(problems, list) and any(p.startswith(expected) for p in problems), problems
    assert all("\n" not in p for p in problems)
    r = cli("pack", "verify", str(pack))
    assert r.returncode == 1 and "Traceback" not in r.stderr and expected in r.stderr
    assert snapshot(outside) == before


def test_every_kind_of_extra_entry_is_named(site):
    from outputs.packs.store import verify_pack
    pack, outside = site
    _extra_directories(pack, outside)
    (pack / "tasks" / "stray").mkdir()
    (pack / "tasks" / "stray" / "kit.json").write_text("{}")
    (pack / "notes.txt").write_text("hi")
    os.mkfifo(pack / "objects" / "pipe")
    problems = verify_pack(pack)
    empty = next(f"objects/{p}" for p in (f"{i:02x}" for i in range(256))
                 if (pack / "objects" / p).is_dir() and not any((pack / "objects" / p).iterdir()))
    for p in (f"extra: {empty}/ (an empty directory)", "extra: junk/ (not part of the pack)",
              "extra: objects/zz/ (a directory that is not part of the pack)",
              f"extra: tasks/{TASK}/more/ (a directory that is not part of the pack)",
              "extra: tasks/stray/ (a directory that is not part of the pack)",
              "extra: tasks/stray/kit.json (not part of the pack)", "extra: notes.txt (not part of the pack)",
              "extra: objects/pipe (not a regular file)"):
        assert p in problems, problems


def test_object_copied_under_a_wrong_prefix_is_misplaced_and_a_moved_one_also_missing(site):
    from outputs.packs.store import verify_pack
    pack, outside = site
    ref = a_ref(pack, "kit", "README.md")
    sha = ref["sha256"]
    wrong = "00" if not sha.startswith("00") else "01"
    (pack / "objects" / wrong).mkdir(exist_ok=True)
    shutil.copy(pack / "objects" / sha[:2] / sha, pack / "objects" / wrong / sha)
    assert verify_pack(pack) == [f"misplaced: objects/{wrong}/{sha} (an object belongs under objects/{sha[:2]}/)"]
    (pack / "objects" / sha[:2] / sha).unlink()
    problems = verify_pack(pack)
    assert f"missing: task {TASK} kit file README.md (objects/{sha[:2]}/{sha})" in problems


def test_index_linked_outside_is_refused_in_one_line(site):
    pack, outside = site
    shutil.move(pack / "index.json", outside / "index.json")
    (pack / "index.json").symlink_to(outside / "index.json")
    assert audited_verify(pack).startswith("error: ")
    line = one_line_error(cli("pack", "verify", str(pack)))
    assert "symlink: index.json" in line
    (pack / "index.json").unlink()
    (pack / "index.json").symlink_to(outside / "fifo")
    assert "symlink: index.json" in audited_verify(pack)


def test_task_id_leaving_the_pack_is_refused_and_its_manifests_never_opened(site):
    """The index names a task `../../outside` whose manifests an attacker put outside the
    pack, at tasks/../../outside/: refused as an index that breaks the id rule, before any
    manifest is read."""
    pack, outside = site
    idx = _json(pack / "index.json")
    idx["tasks"][0]["id"] = "../../outside"
    _write_json(pack / "index.json", idx)
    for part in ("kit", "sealed"):
        shutil.copy(pack / "tasks" / TASK / f"{part}.json", outside / f"{part}.json")
    repin(pack)
    assert (pack / "tasks" / "../../outside" / "kit.json").resolve() == (outside / "kit.json").resolve()
    got = audited_verify(pack)
    assert isinstance(got, str) and "invalid index: tasks[0].id" in got and "../../outside" in got
    line = one_line_error(cli("pack", "verify", str(pack)))
    assert "tasks[0].id" in line
    line = one_line_error(cli("eval", str(pack), "--task", "../../outside", "--agent", "null",
                              "--out", str(pack.parent / "eval-out")))
    assert "tasks[0].id" in line


def _regold(pack: Path) -> None:
    """Change the gold of the first sealed test (its expected database hash), write the new
    tests.json as an object and re-pin the sealed manifest."""
    ref = a_ref(pack, "sealed", "tests.json")
    tests = json.loads((pack / "objects" / ref["sha256"][:2] / ref["sha256"]).read_bytes())
    tests[0]["factforge"]["expected_db_hash"] = "0" * 64
    sha, size = put_object(pack, json.dumps(tests, indent=2).encode("utf-8"))
    (pack / "objects" / ref["sha256"][:2] / ref["sha256"]).unlink()
    if not any((pack / "objects" / ref["sha256"][:2]).iterdir()):   # a re-pin leaves no empty fan-out folder
        (pack / "objects" / ref["sha256"][:2]).rmdir()

    def edit(files):
        f = next(f for f in files if f["path"] == "tests.json")
        f["sha256"], f["size"] = sha, size
    edit_manifest(pack, "sealed", edit)


def test_regilded_gold_with_a_stale_version_is_refused(site):
    from outputs.packs.store import Pack, verify_pack
    pack, _ = site
    _regold(pack)
    repin(pack, version=False)
    problems = verify_pack(pack)
    assert len(problems) == 1 and problems[0].startswith("changed: index.json (pack_version"), problems
    with pytest.raises(FactforgeError, match="index.json was edited after the pack was built"):
        Pack(pack)
    line = one_line_error(cli("eval", str(pack), "--task", TASK, "--agent", "null", "--out", str(pack.parent / "o")))
    assert "pack_version" in line


@pytest.mark.slow
def test_regilded_gold_fully_repinned_is_a_different_pack_version(built, site, tmp_path):
    """Sealed content is pinned by the index: re-pinned gold verifies as a consistent pack,
    but under another version, and `eval` prints and records the version it scored."""
    from outputs.packs.store import Pack, index_version, verify
    pack, _ = site
    original = Pack(built).version
    assert original == index_version(Pack(built).index) and re.fullmatch(r"[0-9a-f]{16}", original)
    _regold(pack)
    repin(pack)
    v = verify(pack)
    assert v.problems == [] and v.pack_version != original and Pack(pack).version == v.pack_version
    out = tmp_path / "eval-out"
    r = cli("eval", str(pack), "--task", TASK, "--agent", "null", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert f"on pack {v.pack_version}:" in r.stdout
    assert _json(out / "results.json")["run"]["pack_version"] == v.pack_version
    r = cli("pack", "verify", str(built))
    assert r.returncode == 0 and f"pack {original}" in r.stdout


def test_intact_pack_verify_opens_nothing_outside_it_per_strace(built):
    """Per strace: between two markers, every open is the pack directory as given or one
    name opened below a descriptor, with O_NOFOLLOW."""
    if not shutil.which("strace"):
        pytest.skip("strace is not installed")
    calls = strace_verify(built)
    assert calls
    for c in calls:
        m = re.search(r'openat\((AT_FDCWD|\d+), "([^"]*)", ([^)]*)\)', c)
        assert m, c
        dirfd, path, flags = m.groups()
        if dirfd == "AT_FDCWD":
            assert path == str(built), c
        else:
            assert "/" not in path and path not in (".", "..") and "O_NOFOLLOW" in flags, c


@pytest.mark.parametrize("target", ["index.json", f"tasks/{TASK}/kit.json"])
def test_a_pack_of_another_schema_version_is_refused(site, target):
    from outputs.packs.store import Pack, verify_pack
    pack, _ = site
    obj = _json(pack / target)
    obj["schema_version"] = "0.9"
    _write_json(pack / target, obj)
    repin(pack)
    with pytest.raises(FactforgeError, match=r"schema_version '0.9' is not the pack schema this factforge reads \(1.0\)"):
        Pack(pack).manifest(TASK, "kit")
    if target != "index.json":
        assert verify_pack(pack) == [f"invalid: {target}: schema_version '0.9' is not the pack schema this factforge "
                                     "reads (1.0); rebuild the pack"]

