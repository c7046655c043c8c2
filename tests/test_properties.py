"""Property-based hardening (hypothesis): random and mutated policies, domain.toml files,
variant specs (TOML and YAML) and bundle manifests are fed to the loaders and to `verify`.

The property everywhere: the outcome is either success or one `FactforgeError` whose message
is a single line; never another exception (a traceback for a user), never a hang, and
nothing is written anywhere (a loader writes nothing; `verify` leaves the bundle, its parent
folder and the working directory exactly as they were). Outside each bundle sits a FIFO that
a manifest may name in many ways (`../canary`, an absolute path, a link inside the bundle):
opening it would block, so a verify that ever opened a file outside its bundle would hang
and be stopped by an alarm.

Examples are bounded (`EXAMPLES` per property, 5 properties) so the suite runs in the normal
test run; no example database is written (`database=None`). With $CI set the examples are
derandomized, so CI runs the same inputs every time.
"""
from __future__ import annotations

import copy
import json
import os
import shutil
import signal
import tarfile
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from domains import BUILTIN_DIR, load_pack
from facts.errors import FactforgeError

from .conftest import snapshot

MOCK = BUILTIN_DIR / "_mock"
EXAMPLES = int(os.environ.get("FACTFORGE_PROPERTY_EXAMPLES", "60"))
PROPS = settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=bool(os.environ.get("CI")),
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                        HealthCheck.function_scoped_fixture])

# Tokens a careless or hostile user puts into files: structure, traversal, odd bytes.
TOKENS = ["\n", "\n\n", "[", "]", "[[", "]]", "=", '"', "'", '"""', "#", "- ", "## ", "# ", "|", "| --- |", "```",
          "<!--", "-->", "..", "../", "../../../x", "/", "/etc/passwd", "\\", "\x00", "\ufeff", "\u202e", "é",
          "$", "%", "12", "-1", "1e309", "NaN", "true", "null", ":", ": ", "{", "}", ",", "*", "&a", "*a", "!!python",
          "name", "domain", "brand", "values", "match", "to", "slot_value", "section", "company", "now",
          "2026-13-45", "x" * 300]


def mutated(base: str) -> st.SearchStrategy[str]:
    """`base` with up to 8 random edits: insert a token or random text, delete a span,
    duplicate or drop a line."""
    edit = st.tuples(st.sampled_from(["insert", "delete", "dup_line", "drop_line", "text"]),
                     st.floats(0, 1), st.sampled_from(TOKENS), st.text(max_size=12))

    def apply(edits) -> str:
        s = base
        for op, where, token, text in edits:
            i = int(where * len(s))
            lines = s.split("\n")
            j = min(int(where * len(lines)), len(lines) - 1)
            if op == "insert":
                s = s[:i] + token + s[i:]
            elif op == "text":
                s = s[:i] + text + s[i:]
            elif op == "delete":
                s = s[:i] + s[i + len(token):]
            elif op == "dup_line":
                s = "\n".join(lines[:j + 1] + [lines[j]] + lines[j + 1:])
            else:
                s = "\n".join(lines[:j] + lines[j + 1:])
        return s

    return st.lists(edit, max_size=8).map(apply)


def as_bytes(text_strategy: st.SearchStrategy[str]) -> st.SearchStrategy[bytes]:
    """Mostly UTF-8; one in four with an invalid byte spliced in."""
    return st.tuples(text_strategy, st.floats(0, 1), st.sampled_from([b""] * 9 + [b"\xff", b"\xc3", b"\xe9\x00"])).map(
        lambda t: (lambda b: b[:int(t[1] * len(b))] + t[2] + b[int(t[1] * len(b)):])(t[0].encode("utf-8",
                                                                                                 "surrogatepass")))


def one_line(e: FactforgeError) -> None:
    assert "\n" not in e.render() and e.render().strip(), repr(e.render())
    event(f"refused: {e.problem.split(':')[0][:40]}")


@contextmanager
def no_hang(seconds: int = 60):
    def alarm(*_):
        raise TimeoutError("hung (opened a file outside the bundle?)")
    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


# --------------------------------------------------------------------------- policies

POLICY = (MOCK / "policy.md").read_text(encoding="utf-8")


@PROPS
@given(data=as_bytes(mutated(POLICY) | st.text(max_size=400)))
def test_policies_decompose_or_fail_in_one_line(data):
    from facts.decompose import decompose_markdown
    try:
        fs = decompose_markdown(data, "_mock", "policy.md")
    except FactforgeError as e:
        one_line(e)
        return
    event("decomposed")
    assert all(f.source.start_line >= 1 for f in fs.facts)


# --------------------------------------------------------------------------- domain.toml

DOMAIN_TOML = (MOCK / "domain.toml").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def pack_dir():
    with tempfile.TemporaryDirectory(prefix="ff-prop-pack-") as d:
        p = Path(d) / "packx"
        shutil.copytree(MOCK, p, ignore=shutil.ignore_patterns("variants", "__pycache__"))
        yield p


@PROPS
@given(data=as_bytes(mutated(DOMAIN_TOML)))
def test_domain_toml_loads_or_fails_in_one_line(pack_dir, data):
    from domains import NAME_RE
    (pack_dir / "domain.toml").write_bytes(data)
    before = snapshot(pack_dir.parent)
    try:
        pack = load_pack(pack_dir)
    except FactforgeError as e:
        one_line(e)
        assert e.file and e.file.endswith("domain.toml")
    else:
        event("loaded")
        assert NAME_RE.match(pack.name)
    assert snapshot(pack_dir.parent) == before


# --------------------------------------------------------------------------- variant specs

SPEC_TOML = (MOCK / "variants" / "spokewell.toml").read_text(encoding="utf-8")
SPEC_YAML = """variant:
  name: spokewell
  description: a YAML twin
brand:
  company: Spokewell Cycles
  short_name: Spokewell
  email_domain: spokewell.example
  customers: [Wren Hollis, Dario Mensah, Kit Aldana]
values:
  - match: security deposit
    to: "$65"
  - slot_value: "$12"
    section: Late returns
    to: "$15"
derived: []
"""


@pytest.fixture(scope="module")
def spec_dir():
    with tempfile.TemporaryDirectory(prefix="ff-prop-spec-") as d:
        yield Path(d)


@PROPS
@given(data=as_bytes(mutated(SPEC_TOML)), yaml_data=as_bytes(mutated(SPEC_YAML)), use_yaml=st.booleans())
def test_variant_specs_parse_or_fail_in_one_line(mock_pack, spec_dir, data, yaml_data, use_yaml):
    from domains.variant_spec import parse_variant
    p = spec_dir / ("spokewell.yaml" if use_yaml else "spokewell.toml")
    p.write_bytes(yaml_data if use_yaml else data)
    try:
        parse_variant(mock_pack, p)
        event("parsed")
    except FactforgeError as e:
        one_line(e)
    finally:
        p.unlink()


# --------------------------------------------------------------------------- manifests

@pytest.fixture(scope="module")
def bundle_site():
    """A real bundle (written by write_bundle), a FIFO canary beside it and a link to the
    canary inside it (so every verify reports that link and must not follow it)."""
    from outputs.bundle import write_bundle
    with tempfile.TemporaryDirectory(prefix="ff-prop-bundle-") as d:
        d = Path(d)
        src = d / "src.txt"
        src.write_text("evidence\n")
        arts = [{"path": f"evidence/conversations/chat/a{i}.txt", "file": src, "family": "conversations",
                 "kind": "conversations/chat", "artifact_id": f"a{i}", "fact_ids": [f"_mock.s.f{i % 2}"]}
                for i in range(3)]
        b, _ = write_bundle(d / "out", domain="_mock", seed=1, generator_version="t", facts_json={"hash": "f"},
                            plan_json={"hash": "p"}, artifacts=arts, reports={"reports/r.json": {"ok": True}})
        os.mkfifo(b.parent / "canary")
        os.symlink(b.parent / "canary", b / "evidence" / "canary-link")
        yield d, b, (b / "manifest.json").read_text(encoding="utf-8")


PATHS = st.one_of(st.sampled_from(["../canary", "../../canary", "/etc/passwd", "evidence/canary-link", "../canary-link",
                                   "evidence/../../canary", "evidence//a", "./facts.json", "facts.json",
                                   "manifest.json", "evidence/conversations/chat/a0.txt", "evidence\\a", "a\x00b",
                                   "", "/", "." * 300]),
                  st.text(alphabet="ab./\\\x00é", max_size=20))
JSONS = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10) |
                     PATHS, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=3),
                     max_leaves=6)


def manifest_edits(original: str) -> st.SearchStrategy[bytes]:
    """Structural edits of the manifest (fields replaced, entries added with hostile paths,
    duplicated, dropped, reordered; fact index edits) or raw text mutations of it."""
    man = json.loads(original)
    fields = sorted(man)

    def structural(ops) -> bytes:
        m = json.loads(original)
        for op, field, value, path, k in ops:
            files = m.get("files") if isinstance(m.get("files"), list) else None
            if op == "set":
                m[field] = value
            elif op == "drop":
                m.pop(field, None)
            elif op == "entry" and files is not None:
                files.insert(k % (len(files) + 1), {"path": path, "sha256": "0" * 64, "size": 9, "fact_ids": []})
            elif op == "entry_path" and files:
                e = files[k % len(files)]
                if isinstance(e, dict):
                    e["path"] = path
            elif op == "dup" and files:
                files.append(files[k % len(files)])
            elif op == "reverse" and files:
                files.reverse()
            elif op == "index" and isinstance(m.get("fact_index"), dict):
                m["fact_index"][str(value)[:20]] = [path]
        return json.dumps(m, indent=2).encode("utf-8")

    op = st.tuples(st.sampled_from(["set", "drop", "entry", "entry_path", "dup", "reverse", "index"]),
                   st.sampled_from(fields), JSONS, PATHS, st.integers(0, 10))
    return st.one_of(st.lists(op, min_size=1, max_size=4).map(structural), as_bytes(mutated(original)))


def test_hostile_paths_name_the_canary(bundle_site):
    """The hostile paths really are in play: relative to the bundle, `../canary` and the
    link inside it name the FIFO beside the bundle."""
    d, b, original = bundle_site
    assert (b / "../canary").resolve() == (b.parent / "canary").resolve()
    assert (b / "evidence" / "canary-link").resolve() == (b.parent / "canary").resolve()
    assert os.path.exists(b.parent / "canary")


@settings(parent=PROPS, max_examples=EXAMPLES * 2)
@given(data=st.data())
def test_verify_never_crashes_writes_or_leaves_the_bundle(bundle_site, data):
    from outputs.bundle import verify_bundle
    d, b, original = bundle_site
    raw = data.draw(manifest_edits(original))
    (b / "manifest.json").write_bytes(raw)
    before = snapshot(d)
    cwd_before = set(os.listdir("."))
    try:
        with no_hang():
            problems = verify_bundle(b)
    except FactforgeError as e:
        one_line(e)
    else:
        event("verified: " + ("problems" if problems else "intact"))
        assert all("\n" not in p for p in problems)
        assert all(not p.split(": ", 1)[-1].startswith(("/", "..")) for p in problems), problems
    finally:
        (b / "manifest.json").write_text(original, encoding="utf-8")
    after = snapshot(d)
    after.pop(str(b / "manifest.json"), None)
    before.pop(str(b / "manifest.json"), None)
    assert after == before and set(os.listdir(".")) == cwd_before


# --------------------------------------------------------------------------- pack manifests and index files

PACK_TASK = "_mock-prop"


@pytest.fixture(scope="module")
def pack_site():
    """A small real pack written by PackWriter (one task; a kit and a sealed part), a FIFO
    canary beside it and the original bytes of its index and manifests. Materializing goes
    to `dest` beside the pack, so `../canary` from there names the FIFO."""
    from outputs.packs.store import PackIndex, PackWriter, TaskEntry, TaskHashes
    with tempfile.TemporaryDirectory(prefix="ff-prop-packs-") as d:
        d = Path(d)
        w = PackWriter(d / "pack")
        parts = {"kit": {"README.md": b"read me\n", "evidence/a.txt": b"a\n", "evidence/b/c.txt": b"c\n"},
                 "sealed": {"tests.json": b"[]\n", "db.json": b"{}\n"}}
        pinned, sizes = {}, {}
        for part, files in parts.items():
            pinned[part], sizes[part] = w.write_part(PACK_TASK, part, {p: w.put_bytes(b) for p, b in files.items()})
        z = "0" * 64
        entry = TaskEntry(id=PACK_TASK, domain="_mock", bundle="_mock", title="t", levers={},
                          hashes=TaskHashes(spec=z, inputs=z, kit=pinned["kit"], sealed=pinned["sealed"], menu=z,
                                            phrasing=z, deployment=None), kit=sizes["kit"], sealed=sizes["sealed"])
        root = w.commit(PackIndex(generator_version="t", seed=0, tasks=[entry]))
        os.mkfifo(d / "canary")
        originals = {rel: (root / rel).read_bytes()
                     for rel in ("index.json", f"tasks/{PACK_TASK}/kit.json", f"tasks/{PACK_TASK}/sealed.json")}
        yield d, root, originals


PACK_PATHS = st.one_of(PATHS, st.sampled_from(["MANIFEST.json", "README.md", "README.md/x", "evidence", "evidence/b",
                                              "evidence/a.txt", "../dest/x", "/tmp/ff-prop-pwned", "a\nb", "a\u202eb"]))
TASK_IDS = st.one_of(st.sampled_from([PACK_TASK, "../../outside", "/abs-task", "a/b", "", "_mock-prop\n", "x" * 300,
                                      "_mock-other", ".."]), st.text(alphabet="ab-_./\\\x00", max_size=12))
HEX = "0123456789abcdef"
SHAS = st.one_of(st.sampled_from(["../../../etc/hostname", "", "A" * 64, "0" * 63]),
                 st.text(alphabet=HEX, min_size=64, max_size=64), st.text(max_size=70))
FILE_REFS = st.one_of(st.fixed_dictionaries({"path": PACK_PATHS, "sha256": SHAS, "size": st.integers(-2, 10)}),
                      JSONS)


def pack_manifest_edits(original: bytes) -> st.SearchStrategy[bytes]:
    """Structural edits of a part manifest (entries added with hostile paths, sha256 values
    that are paths, sizes, duplicates, reordering, another task id or part) or raw mutations."""
    def structural(ops) -> bytes:
        from outputs.packs.store import json_bytes
        m = json.loads(original)
        for op, ref, k, value in ops:
            files = m["files"]
            if op == "add":
                files.insert(k % (len(files) + 1), ref)
            elif op == "replace" and files:
                files[k % len(files)] = ref
            elif op == "path" and files and isinstance(ref, dict) and "path" in ref and isinstance(files[k % len(files)],
                                                                                                dict):
                files[k % len(files)]["path"] = ref["path"]
            elif op == "dup" and files:
                files.append(copy.deepcopy(files[k % len(files)]))   # an entry may be any JSON ("replace")
            elif op == "reverse":
                files.reverse()
            elif op == "task_id":
                m["task_id"] = value
            elif op == "part":
                m["part"] = value if k % 2 else "sealed"
        return json_bytes(m)

    op = st.tuples(st.sampled_from(["add", "replace", "path", "dup", "reverse", "task_id", "part"]), FILE_REFS,
                   st.integers(0, 10), TASK_IDS)
    return st.one_of(st.lists(op, min_size=1, max_size=4).map(structural),
                     as_bytes(mutated(original.decode("utf-8"))))


def index_edits(original: bytes) -> st.SearchStrategy[bytes]:
    """Structural edits of index.json (task ids that are paths, hashes that are paths, a task
    listed twice, fields replaced or dropped, the version) or raw mutations."""
    def structural(ops) -> bytes:
        from outputs.packs.store import json_bytes
        m = json.loads(original)
        for op, tid, sha, value, k in ops:
            tasks = m.get("tasks") if isinstance(m.get("tasks"), list) else []
            task = tasks[k % len(tasks)] if tasks and isinstance(tasks[k % len(tasks)], dict) else None
            if op == "id" and task is not None:
                task["id"] = tid
            elif op == "hash" and task is not None and isinstance(task.get("hashes"), dict) and task["hashes"]:
                task["hashes"][sorted(task["hashes"])[k % len(task["hashes"])]] = sha
            elif op == "dup" and task is not None:
                tasks.append(json.loads(json.dumps(task)))
            elif op == "set" and m:
                m[sorted(m)[k % len(m)]] = value
            elif op == "drop" and m:
                m.pop(sorted(m)[k % len(m)], None)
            elif op == "version":
                m["pack_version"] = sha[:16]
        return json_bytes(m)

    op = st.tuples(st.sampled_from(["id", "hash", "dup", "set", "drop", "version"]), TASK_IDS, SHAS, JSONS,
                   st.integers(0, 10))
    return st.one_of(st.lists(op, min_size=1, max_size=4).map(structural),
                     as_bytes(mutated(original.decode("utf-8"))))


def repin_pack(root: Path) -> None:
    """What an attacker does after an edit: every manifest's sha256 written into index.json
    (where the index still has that shape) and the pack version recomputed over the index."""
    from facts.hashing import sha256_hex
    from outputs.packs.store import json_bytes
    try:
        idx = json.loads((root / "index.json").read_bytes())
    except ValueError:
        return
    if not isinstance(idx, dict):
        return
    for t in idx.get("tasks") if isinstance(idx.get("tasks"), list) else []:
        if isinstance(t, dict) and isinstance(t.get("hashes"), dict) and isinstance(t.get("id"), str):
            for part in ("kit", "sealed"):
                p = root / "tasks" / PACK_TASK / f"{part}.json"
                t["hashes"][part] = sha256_hex(p.read_bytes())
    idx["pack_version"] = sha256_hex(json_bytes({k: v for k, v in idx.items() if k != "pack_version"}))[:16]
    (root / "index.json").write_bytes(json_bytes(idx))


@settings(parent=PROPS, max_examples=EXAMPLES * 2)
@given(data=st.data())
def test_hostile_packs_load_verify_materialize_and_export_or_refuse_in_one_line(pack_site, data):
    """Whatever a pack's index and manifests say: loading, verifying, materializing and
    exporting succeed or raise one one-line FactforgeError, nothing outside the destination
    folders is written, no archive member leaves its archive, and the FIFO beside the pack is
    never opened."""
    from outputs.packs.store import Pack, export_task, verify_pack
    d, root, originals = pack_site
    target = data.draw(st.sampled_from(sorted(originals)), label="file")
    raw = data.draw(index_edits(originals[target]) if target == "index.json" else pack_manifest_edits(originals[target]),
                    label="content")
    (root / target).write_bytes(raw)
    if data.draw(st.booleans(), label="re-pinned"):
        repin_pack(root)
    dest, exported = d / "dest", d / "exported"
    before = snapshot(d)
    cwd_before = set(os.listdir("."))
    try:
        with no_hang():
            try:
                problems = verify_pack(root)
            except FactforgeError as e:
                one_line(e)
            else:
                assert all("\n" not in p for p in problems)
            try:
                pack = Pack(root)
                for part in ("kit", "sealed"):
                    pack.manifest(PACK_TASK, part)
                pack.materialize(PACK_TASK, "kit", dest)
                export_task(pack, PACK_TASK, exported)
                event("materialized and exported")
            except FactforgeError as e:
                one_line(e)
        for archive in exported.rglob("*.tar.gz") if exported.exists() else []:
            with tarfile.open(archive) as t:
                assert not any(n.startswith("/") or ".." in n.split("/") for n in t.getnames())
        after = {p: v for p, v in snapshot(d).items() if not p.startswith((str(dest), str(exported)))}
        assert after == {p: v for p, v in before.items() if not p.startswith((str(dest), str(exported)))}
        assert set(os.listdir(".")) == cwd_before
    finally:
        shutil.rmtree(dest, ignore_errors=True)
        shutil.rmtree(exported, ignore_errors=True)
        for rel, b in originals.items():
            (root / rel).write_bytes(b)


@PROPS
@given(path=st.one_of(PACK_PATHS, st.text(max_size=30), st.text(alphabet="a./\\\x00 ", max_size=16)))
def test_a_path_the_rule_accepts_never_leaves_its_folder(path):
    from outputs.paths import path_problem
    dest = "/srv/dest"
    why = path_problem(path)
    if why is None:
        event("accepted")
        joined = os.path.normpath(os.path.join(dest, path))
        assert joined.startswith(dest + "/") and joined == os.path.join(dest, path)
        assert (Path(dest) / path).parts[:3] == ("/", "srv", "dest") and ".." not in Path(path).parts
    else:
        event(f"refused: {why[:30]}")
        assert "\n" not in why
