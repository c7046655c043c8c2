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

import json
import os
import shutil
import signal
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from domains import BUILTIN_DIR, load_pack
from facts.errors import FactforgeError

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


def snapshot(*roots: Path) -> dict[str, tuple]:
    out = {}
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            for n in dirnames + filenames:
                p = os.path.join(dirpath, n)
                st_ = os.lstat(p)
                out[p] = (st_.st_mode, st_.st_size, st_.st_mtime_ns)
    return out


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
