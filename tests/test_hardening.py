"""Hostile-input probes, one test each: nothing escapes its folder, nothing hangs, every error is
one line. Packs are copies of `_mock` in a temporary --domains-dir with one thing broken."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from domains import BUILTIN_DIR, load_pack, scan
from facts.errors import FactforgeError

from .test_pipeline import bundle_dirs, run_cli

MOCK = BUILTIN_DIR / "_mock"


def make_pack(root: Path, folder: str, *, name: str | None = None, toml: str | None = None,
              seed: str | None = None, policy: str | bytes | None = None) -> Path:
    """A copy of the _mock pack under root/folder with its name (or domain.toml, domain.py,
    policy.md) replaced; no variants."""
    p = root / folder
    shutil.copytree(MOCK, p, ignore=shutil.ignore_patterns("variants", "__pycache__"))
    text = (p / "domain.toml").read_text(encoding="utf-8")
    text = text.replace('name = "_mock"', f'name = {json.dumps(name or folder)}')
    (p / "domain.toml").write_text(toml if toml is not None else text, encoding="utf-8")
    if seed is not None:
        (p / "domain.py").write_text(seed, encoding="utf-8")
    if policy is not None:
        (p / "policy.md").write_bytes(policy if isinstance(policy, bytes) else policy.encode("utf-8"))
    return p


def one_line_error(r: subprocess.CompletedProcess, code: int = 1) -> str:
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr + r.stdout
    assert len(lines) == 1, r.stderr
    return lines[0]


def tree(root: Path) -> set[str]:
    return {str(p) for p in root.rglob("*")}


# --------------------------------------------------------------------------- 1. escape

def test_pack_name_with_dotdot_is_refused_wherever_the_pack_loads(tmp_path):
    dd = tmp_path / "dd"
    make_pack(dd, "evil", name="../../../x")
    with pytest.raises(FactforgeError) as e:
        load_pack(dd / "evil")
    assert "invalid domain name '../../../x'" in str(e.value) and "domain.toml:3" in str(e.value)
    before = tree(tmp_path)
    r = run_cli("build", "--domain", "../../../x", "--domains-dir", str(dd), "--out", str(tmp_path / "out"),
                "--workspace", str(tmp_path / "ws"), "--profile", "text-only")
    line = one_line_error(r)
    assert "domain.toml:3: invalid domain name '../../../x'" in line
    assert not (tmp_path / "out" / "bundles").exists() and tree(tmp_path) - before <= tree(tmp_path / "ws") | {
        str(tmp_path / "ws"), str(tmp_path / "out")}
    assert not (tmp_path.parent / "x").exists()


def test_write_bundle_refuses_names_and_paths_that_leave_the_output(tmp_path):
    from outputs.bundle import write_bundle
    src = tmp_path / "a.txt"
    src.write_text("a")
    kw = dict(seed=0, generator_version="t", facts_json={}, plan_json={}, reports={})
    for domain, path in (("../x", "evidence/a.txt"), ("ok", "../../a.txt"), ("ok", "/etc/a.txt")):
        with pytest.raises(FactforgeError):
            write_bundle(tmp_path / "out", domain=domain, artifacts=[{"path": path, "file": src, "family": "f",
                                                                      "kind": "k", "artifact_id": "a",
                                                                      "fact_ids": []}], **kw)
    assert not (tmp_path / "a.txt.bak").exists()
    assert [p.name for p in (tmp_path / "out" / "bundles").rglob("*")] in ([], ["ok"])


# --------------------------------------------------------------------------- 2. verify

@pytest.fixture()
def bundle(tmp_path):
    """A real bundle written by write_bundle: two evidence files, reports, facts, plan."""
    from outputs.bundle import write_bundle
    srcs = []
    for i, text in enumerate(["first evidence file\n", "second one\n"]):
        p = tmp_path / f"src{i}.txt"
        p.write_text(text)
        srcs.append({"path": f"evidence/conversations/chat/a{i}.txt", "file": p, "family": "conversations",
                     "kind": "conversations/chat", "artifact_id": f"a{i}", "fact_ids": [f"_mock.s.f{i}"]})
    b, _ = write_bundle(tmp_path / "out", domain="_mock", seed=1, generator_version="t", facts_json={"hash": "f"},
                        plan_json={"hash": "p"}, artifacts=srcs, reports={"reports/r.json": {"ok": True}})
    return b


def cli_verify(b: Path) -> subprocess.CompletedProcess:
    return run_cli("verify", str(b))


def test_verify_passes_a_real_bundle_and_its_version_hash_matches(bundle):
    from outputs.bundle import load_manifest, verify_bundle
    assert verify_bundle(bundle) == []
    man = load_manifest(bundle)
    assert man.bundle_version == bundle.name and man.bundle_version.endswith(man.content_hash[:12])
    assert man.compute_hash() == man.content_hash


@pytest.mark.parametrize("path,why", [("../../etc/passwd", "'..' is not allowed"),
                                      ("/etc/passwd", "an absolute path is not allowed"),
                                      ("evidence/./a", "'.' parts"), ("a//b", "empty"), ("a\\..\\b", "backslash")])
def test_verify_refuses_paths_outside_the_bundle_without_opening_them(bundle, tmp_path, path, why):
    outside = tmp_path / "fifo"
    os.mkfifo(outside)  # opening it would block: verify must never open it
    man = json.loads((bundle / "manifest.json").read_text())
    data = Path("/etc/passwd").read_bytes()
    man["files"].insert(0, {"path": path, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data),
                            "family": None, "kind": None, "artifact_id": None, "fact_ids": []})
    (bundle / "manifest.json").write_text(json.dumps(man, indent=2))
    line = one_line_error(cli_verify(bundle))
    assert f"files[0].path: {path!r}" in line and why in line
    assert "changed" not in line and "ok" not in line


def test_verify_wrong_hash_for_outside_file_tells_nothing_about_it(bundle):
    man = json.loads((bundle / "manifest.json").read_text())
    man["files"].insert(0, {"path": "/etc/shadow", "sha256": "0" * 64, "size": 1, "fact_ids": []})
    (bundle / "manifest.json").write_text(json.dumps(man))
    line = one_line_error(cli_verify(bundle))
    assert "changed: /etc/shadow" not in line and "an absolute path is not allowed" in line


def test_verify_refuses_symlinks_anywhere(bundle, tmp_path):
    man = json.loads((bundle / "manifest.json").read_text())
    victim = next(f["path"] for f in man["files"] if f["path"].startswith("evidence/"))
    copy = tmp_path / "outside-copy.txt"
    shutil.copyfile(bundle / victim, copy)
    (bundle / victim).unlink()
    (bundle / victim).symlink_to(copy)  # same bytes, outside
    r = cli_verify(bundle)
    assert r.returncode == 1 and f"symlink: {victim}" in r.stderr and "Traceback" not in r.stderr
    (bundle / victim).unlink()
    shutil.copyfile(copy, bundle / victim)
    assert cli_verify(bundle).returncode == 0
    # a symlinked directory
    d = bundle / "evidence" / "conversations"
    moved = tmp_path / "moved"
    shutil.move(str(d), moved)
    d.symlink_to(moved, target_is_directory=True)
    r = cli_verify(bundle)
    assert r.returncode == 1 and "symlink: evidence/conversations" in r.stderr and "missing: evidence/" in r.stderr
    d.unlink()
    shutil.move(str(moved), d)
    # manifest.json itself
    real = tmp_path / "manifest-elsewhere.json"
    shutil.move(str(bundle / "manifest.json"), real)
    (bundle / "manifest.json").symlink_to(real)
    assert "manifest.json is a symbolic link" in one_line_error(cli_verify(bundle))


def test_verify_never_follows_a_link_to_an_outside_fifo(bundle, tmp_path):
    fifo = tmp_path / "blocks"
    os.mkfifo(fifo)
    (bundle / "extra-link").symlink_to(fifo)
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "verify", str(bundle)], capture_output=True, text=True,
                       timeout=120, cwd=Path(__file__).resolve().parents[1])
    assert r.returncode == 1 and "symlink: extra-link" in r.stderr


def test_verify_reports_a_special_file_without_opening_it(bundle):
    os.mkfifo(bundle / "evidence" / "pipe")
    r = cli_verify(bundle)
    assert r.returncode == 1 and "extra: evidence/pipe (not a regular file)" in r.stderr


def test_bundle_version_and_every_field_are_covered_by_the_hash(bundle):
    from outputs.bundle import verify_bundle
    orig = (bundle / "manifest.json").read_text()
    for edit, expect in [
        (lambda m: m.update(bundle_version="9.9.9+evil"), "bundle_version: '9.9.9+evil'"),
        (lambda m: m.update(bundle_version="9.9.9+" + m["content_hash"][:12]), "content hash does not match"),
        (lambda m: m.update(seed=2), "content hash does not match"),
        (lambda m: m.update(generator_version="x"), "content hash does not match"),
        (lambda m: m["files"][0].update(family="forged"), "content hash does not match"),
        (lambda m: m["fact_index"].update({"_mock.s.f0": m["fact_index"]["_mock.s.f0"]}) or
         m["files"][0]["fact_ids"].append("_mock.zz"), "fact_index: does not match"),
        (lambda m: m.update(variant="evil"), "does not name the variant"),
    ]:
        man = json.loads(orig)
        edit(man)
        (bundle / "manifest.json").write_text(json.dumps(man, indent=2))
        try:
            problems = verify_bundle(bundle)
            assert any(expect in p for p in problems), (expect, problems)
        except FactforgeError as e:
            assert expect in str(e), (expect, str(e))
    (bundle / "manifest.json").write_text(orig)
    assert verify_bundle(bundle) == []


def test_duplicate_and_unsorted_entries_are_refused(bundle):
    orig = json.loads((bundle / "manifest.json").read_text())
    man = json.loads(json.dumps(orig))
    man["files"].insert(1, dict(man["files"][0]))
    (bundle / "manifest.json").write_text(json.dumps(man))
    assert "files[1].path: 'evidence/conversations/chat/a0.txt' is listed twice" in one_line_error(cli_verify(bundle))
    man = json.loads(json.dumps(orig))
    man["files"].reverse()
    (bundle / "manifest.json").write_text(json.dumps(man))
    assert "is out of order" in one_line_error(cli_verify(bundle))
    (bundle / "manifest.json").write_text(json.dumps(orig)[:-1] + ', "files": []}')
    assert "files: the field appears twice" in one_line_error(cli_verify(bundle))


@pytest.mark.parametrize("edit,expect", [
    (lambda m: m["files"][0].update(sha256="xyz"), "files[0].sha256: string should match pattern"),
    (lambda m: m["files"][0].update(size=-1), "files[0].size: input should be greater than or equal to 0"),
    (lambda m: m["files"][0].update(size="12"), "files[0].size: input should be a valid integer"),
    (lambda m: m["files"][0].update(evil=1), "files[0].evil: extra inputs are not permitted"),
    (lambda m: m.pop("seed"), "seed: field required"),
    (lambda m: m.update(domain="../x"), "domain: string should match pattern"),
    (lambda m: m.update(extra_field=1), "extra_field: unknown manifest field"),
    (lambda m: m.update(schema_version="0.9"), "schema_version: '0.9' is not the version"),
    (lambda m: m.pop("files"), "files: field required"),
])
def test_invalid_manifest_field_is_named_with_the_reason(bundle, edit, expect):
    man = json.loads((bundle / "manifest.json").read_text())
    edit(man)
    (bundle / "manifest.json").write_text(json.dumps(man, indent=2))
    line = one_line_error(cli_verify(bundle))
    assert "manifest.json" in line and expect in line, line


@pytest.mark.slow
def test_broken_json_and_oversized_values_are_one_line(bundle):
    (bundle / "manifest.json").write_text('{"files": [ {"path": "a"')
    assert "invalid JSON" in one_line_error(cli_verify(bundle))
    (bundle / "manifest.json").write_bytes(b'{"domain": "\xff"}')
    assert "not valid UTF-8" in one_line_error(cli_verify(bundle))
    (bundle / "manifest.json").write_text('{"domain": "' + "a" * (1 << 21) + '"}')
    assert "value longer than" in one_line_error(cli_verify(bundle))
    (bundle / "manifest.json").write_text('{"seed": NaN}')
    assert "NaN is not JSON" in one_line_error(cli_verify(bundle))
    (bundle / "manifest.json").write_text("[" * 100000)
    assert "invalid JSON" in one_line_error(cli_verify(bundle))


@pytest.mark.slow
def test_verify_memory_does_not_grow_with_the_number_of_entries(tmp_path, monkeypatch):
    """Peak Python memory of verify on manifests of 12,000 and 48,000 entries (files absent:
    every entry is reported missing): the larger one may not need more than a little extra.
    Both manifests are larger than the reader's buffers (a 6,000-entry manifest is not: its
    peak is about 1 MB lower while the buffers fill, then memory stays flat)."""
    import tracemalloc

    from outputs.bundle import verify
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from bench_verify import write_big_manifest  # the benchmark's manifest writer
    peaks = []
    for n in (12000, 48000):
        b = tmp_path / f"b{n}"
        write_big_manifest(b, n)
        count = [0]
        tracemalloc.start()
        res = verify(b, lambda p: count.__setitem__(0, count[0] + 1))
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert res.files == n and count[0] == n
    assert peaks[1] < peaks[0] * 1.2 + 256 * 1024, peaks


# --------------------------------------------------------------------------- 3. seeds

def seed_source(body: str, top: str = "") -> str:
    """A domain.py following the domain contract whose generate() runs `body`."""
    return ("from domains.contract import DomainCode\n" + top + "\n\nclass Code(DomainCode):\n"
            "    def generate(self, pack, seed, values=None, price_scale=1.0):\n"
            + "".join(f"        {ln}\n" for ln in body.splitlines()) + "\n\nDOMAIN = Code()\n")


LOOP = seed_source("while True:\n    pass")
RAISES = seed_source("rows = {}\nreturn rows['customers']")  # the return is line 7
SYNTAX = "from domains.contract import DomainCode\n\nclass Code(DomainCode)\n    pass\n"
IMPORT_LOOP = seed_source("return {}", top="while True:\n    pass")


@pytest.mark.slow
def test_seed_with_an_infinite_loop_ends_with_a_clear_line(tmp_path):
    from domains import sandbox
    pack = load_pack(make_pack(tmp_path, "loopy", seed=LOOP))
    t = time.perf_counter()
    with sandbox.time_limit(2), pytest.raises(FactforgeError) as e:
        pack.database(0)
    assert time.perf_counter() - t < 30
    assert "generate() did not finish within 2 s" in str(e.value) and "domain.py" in str(e.value)
    assert "--seed-timeout" in str(e.value)


@pytest.mark.slow
def test_seed_that_loops_while_importing_is_stopped_too(tmp_path, monkeypatch):
    monkeypatch.setenv("FACTFORGE_SEED_TIMEOUT", "2")
    pack = load_pack(make_pack(tmp_path, "loopy", seed=IMPORT_LOOP))
    with pytest.raises(FactforgeError) as e:
        pack.code  # noqa: B018  (loading the pack's code in this process is guarded too)
    assert "domain.py: loading domain.py did not finish within 2 s" in str(e.value)
    with pytest.raises(FactforgeError) as e:
        pack.check_database({})
    assert "domain.py: check() did not finish within 2 s" in str(e.value)


@pytest.mark.parametrize("source,where,what", [(RAISES, "domain.py:7", "KeyError: 'customers' (in generate())"),
                                               (SYNTAX, "domain.py:3", "SyntaxError: expected ':'"),
                                               (seed_source("return {'a': (x for x in [1])}"),
                                                "domain.py", "returned a value that cannot be passed back"),
                                               ("x = 1\n", "domain.py", "domain.py must define DOMAIN")])
def test_seed_errors_name_the_line_and_the_exception(tmp_path, source, where, what):
    pack = load_pack(make_pack(tmp_path, "broken", seed=source))
    with pytest.raises(FactforgeError) as e:
        pack.database(0)
    msg = str(e.value)
    assert where in msg and what in msg and "\n" not in msg


@pytest.mark.slow
def test_seed_timeout_through_the_cli(tmp_path):
    dd = tmp_path / "dd"
    make_pack(dd, "loopy", seed=LOOP)
    r = run_cli("build", "--domain", "loopy", "--domains-dir", str(dd), "--out", str(tmp_path / "out"),
                "--workspace", str(tmp_path / "ws"), "--profile", "text-only", "--seed-timeout", "3")
    line = one_line_error(r)
    assert "domain.py: generate() did not finish within 3 s" in line and "step seed_database of loopy" in line
    make_pack(dd, "raises", seed=RAISES)
    r = run_cli("build", "--domain", "raises", "--domains-dir", str(dd), "--out", str(tmp_path / "out"),
                "--workspace", str(tmp_path / "ws"), "--profile", "text-only")
    assert "raises/domain.py:7: KeyError: 'customers'" in one_line_error(r)


def test_seed_results_are_deterministic_regardless_of_hash_seed(tmp_path):
    src = seed_source("return {'order': list({'pear', 'apple', 'fig', 'kiwi', 'plum'})}")
    d = make_pack(tmp_path, "sets", seed=src)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from domains import load_pack; "
            "print(load_pack(sys.argv[2]).database(0)['order'])")
    outs = set()
    for hs in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": hs}
        r = subprocess.run([sys.executable, "-c", code, str(Path(__file__).resolve().parents[1]), str(d)],
                           capture_output=True, text=True, env=env, timeout=120)
        assert r.returncode == 0, r.stderr
        outs.add(r.stdout)
    assert len(outs) == 1


# --------------------------------------------------------------------------- 4. tracebacks

@pytest.mark.parametrize("args,code,expect", [
    (["build", "--seed", "abc"], 2, "Invalid value for '--seed'"),
    (["build", "--bogus"], 2, "No such option: --bogus"),
    (["audit", "next"], 2, "Missing option '--reviewer'"),
    (["audit", "submit", "abc"], 2, "Invalid value for 'item_id'"),
    (["build", "--profile", "bogus", "--domain", "_mock"], 2,
     "'bogus' is not one of 'text-only', 'text+image', 'text+image+audio', 'full'"),
    (["build", "--carriers", "0", "--domain", "_mock"], 2, "0 carriers per fact is out of range; use 1 to 5"),
    (["build", "--seed-timeout", "-1", "--domain", "_mock"], 2, "-1 is not a positive, finite number of seconds"),
    (["build", "--seed-timeout", "inf", "--domain", "_mock"], 2, "inf is not a positive, finite number of seconds"),
])
def test_listed_cli_probes_are_one_line(args, code, expect, tmp_path):
    r = run_cli(*args, env_extra={"FACTFORGE_WORKSPACE": str(tmp_path), "FACTFORGE_AUDIT_DB": str(tmp_path / "a.db")})
    line = one_line_error(r, code)
    assert expect in line, line
    assert "pydantic" not in line


@pytest.mark.slow
def test_non_utf8_domain_toml(tmp_path):
    dd = tmp_path / "dd"
    p = make_pack(dd, "latin")
    (p / "domain.toml").write_bytes((p / "domain.toml").read_bytes().replace(b"Pedalwise Rentals",
                                                                            b"P\xe9dalwise Rentals"))
    r = run_cli("domains", "--domains-dir", str(dd))
    assert r.returncode == 0 and "Traceback" not in r.stderr
    (broken,) = [ln for ln in r.stderr.splitlines() if "latin" in ln]
    assert "domain.toml:12: not valid UTF-8 (byte 0xe9)" in broken
    assert "airline" in r.stdout  # the others are listed
    r = run_cli("build", "--domain", "latin", "--domains-dir", str(dd), "--out", str(tmp_path / "o"),
                "--workspace", str(tmp_path / "w"))
    assert "domain.toml:12: not valid UTF-8 (byte 0xe9)" in one_line_error(r)


def test_audit_database_under_a_regular_file(tmp_path):
    f = tmp_path / "plain"
    f.write_text("x")
    for args in (["audit", "next", "--reviewer", "a", "--db", str(f / "q.sqlite")],
                 ["audit", "status", "--db", str(f / "sub" / "q.sqlite")],
                 ["audit", "status", "--db", str(tmp_path)]):
        line = one_line_error(run_cli(*args))
        assert "audit database" in line


def _leaf_commands():
    import typer

    from pipeline.cli import app
    root = typer.main.get_command(app)
    out = []

    def walk(cmd, path):
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in sorted(subs.items()):
                walk(sub, [*path, name])
        else:
            out.append((path, cmd))
    walk(root, [])
    return out


def run_main(argv: list[str], capsys, monkeypatch) -> tuple[int, str, str]:
    from pipeline import cli
    monkeypatch.setattr(sys, "argv", ["factforge", *argv])
    with pytest.raises(SystemExit) as e:
        cli.main()
    out, err = capsys.readouterr()
    return e.value.code, out, err


def test_every_command_answers_bad_usage_with_one_line_and_exit_2(capsys, monkeypatch, tmp_path):
    """Walks every registered command (mounted ones included, so commands added later are
    covered): an unknown option, the required arguments left out, and for each option or
    argument that rejects a non-value, that value. None of them runs the command."""
    from typer._click.exceptions import BadParameter, UsageError
    monkeypatch.setenv("FACTFORGE_WORKSPACE", str(tmp_path))
    monkeypatch.setenv("FACTFORGE_AUDIT_DB", str(tmp_path / "a.db"))
    commands = _leaf_commands()
    assert {"build", "verify", "domains"} <= {" ".join(p) for p, _ in commands}
    cases = 0
    bad_values = 0
    for path, cmd in commands:
        argvs = [[*path, "--no-such-option-zz"]]
        if any(p.required for p in cmd.params):
            argvs.append(list(path))
        for p in cmd.params:
            if getattr(p, "is_flag", False):
                continue
            given = ["not-a-value?"] if p.param_type_name == "argument" else [p.opts[0], "not-a-value?"]
            try:
                cmd.make_context(path[-1], list(given), resilient_parsing=False)
            except BadParameter as e:
                if e.param is not None and e.param.name == p.name:
                    argvs.append([*path, *given])
                    bad_values += 1
            except UsageError:
                pass
        for argv in argvs:
            code, out, err = run_main(argv, capsys, monkeypatch)
            lines = [ln for ln in err.splitlines() if ln.strip()]
            assert code == 2, (argv, code, out, err)
            assert len(lines) == 1 and lines[0].startswith("error: factforge"), (argv, err)
            assert "Traceback" not in err + out
            cases += 1
    assert bad_values >= 4 and cases >= 3 * len(commands) // 2


def test_unexpected_errors_are_one_line_too(capsys, monkeypatch):
    from pipeline import cli

    def boom(*a, **k):
        raise RuntimeError("something\nwent wrong")
    monkeypatch.setattr(cli, "app", boom)
    code, out, err = run_main([], capsys, monkeypatch)
    assert code == 70 and err.count("\n") == 1 and "internal error: RuntimeError: something went wrong" in err


# --------------------------------------------------------------------------- 5. silent acceptance

@pytest.mark.slow
def test_empty_policy_is_an_error(tmp_path):
    dd = tmp_path / "dd"
    make_pack(dd, "empty", policy="\n\n")
    r = run_cli("build", "--domain", "empty", "--domains-dir", str(dd), "--out", str(tmp_path / "o"),
                "--workspace", str(tmp_path / "w"), "--profile", "text-only")
    line = one_line_error(r)
    assert "empty/policy.md:1: the policy states no facts (it is empty)" in line
    assert not (tmp_path / "o" / "bundles").exists() or not any((tmp_path / "o" / "bundles").rglob("manifest.json"))


def test_duplicate_section_heading_is_an_error(tmp_path):
    text = (MOCK / "policy.md").read_text()
    heads = [ln for ln in text.splitlines() if ln.startswith("## ")]
    doubled = text + "\n" + heads[0].upper() + "\n\nThe fee is $5.\n"
    pack = load_pack(make_pack(tmp_path, "dup", policy=doubled))
    with pytest.raises(FactforgeError) as e:
        pack.factset()
    first = text.splitlines().index(heads[0]) + 1
    assert f"duplicate section heading {heads[0][3:].upper()!r} (first at line {first})" in str(e.value)
    assert f"policy.md:{len(doubled.splitlines()) - 2}" in str(e.value)


def test_same_heading_under_different_parents_is_fine():
    from facts.decompose import decompose_markdown
    fs = decompose_markdown("# P\n\n## A\n\n### Fees\n\nThe fee is $5.\n\n## B\n\n### Fees\n\nThe fee is $7.\n", "x")
    assert len(fs.facts) == 2


def test_duplicate_keys_are_errors_with_lines(tmp_path, mock_pack):
    from domains.variant_spec import parse_variant
    base = (MOCK / "variants" / "spokewell.toml").read_text()
    p = tmp_path / "v.toml"
    p.write_text(base + '\n[variant]\nname = "again"\n')
    with pytest.raises(FactforgeError) as e:
        parse_variant(mock_pack, p)
    assert "invalid TOML: Cannot declare ('variant',) twice" in str(e.value)
    assert f"v.toml:{len(base.splitlines()) + 2}" in str(e.value)
    y = tmp_path / "v.yaml"
    y.write_text("variant:\n  name: v\n  description: one\n  name: w\nbrand:\n  company: X\n")
    with pytest.raises(FactforgeError) as e:
        parse_variant(mock_pack, y)
    assert str(e.value).endswith("v.yaml:4: duplicate key 'name' (first at line 2)")


@pytest.mark.parametrize("tail,offset,what", [('\nextra = "unterminated\n', 2, "Illegal character"),
                                              ('\nextra = """unterminated\n\nmore\n', 2, "Unterminated string"),
                                              ("\nlist = [1,\n2,\n", 2, "Invalid value"),
                                              ('\n[brand]\nphone = "x"\n', 2, "Cannot declare ('brand',) twice")])
def test_toml_errors_get_a_line_even_at_end_of_document(tmp_path, tail, offset, what):
    dd = tmp_path / "dd"
    p = make_pack(dd, "badtoml")
    text = (p / "domain.toml").read_text()
    (p / "domain.toml").write_text(text + tail)
    with pytest.raises(FactforgeError) as e:
        load_pack(p)
    assert f"domain.toml:{len(text.splitlines()) + offset}: invalid TOML: {what}" in str(e.value), str(e.value)


def test_duplicate_toml_key_in_last_line_gets_its_line(tmp_path):
    from domains.readers import parse_toml
    with pytest.raises(FactforgeError) as e:
        parse_toml("a = 1\n\n# c\na = 2", Path("x.toml"))
    assert str(e.value) == "x.toml:4: invalid TOML: Cannot overwrite a value"


@pytest.mark.slow
def test_broken_pack_does_not_block_others(tmp_path):
    dd = tmp_path / "dd"
    make_pack(dd, "good")
    make_pack(dd, "bad", toml="[domain]\nname = ")
    packs, broken = scan([dd])
    assert "good" in packs and [b.path.name for b in broken] == ["bad"]
    out = tmp_path / "out"
    r = run_cli("build", "--domain", "good", "--domains-dir", str(dd), "--out", str(out), "--workspace",
                str(tmp_path / "ws"), "--profile", "text-only")
    assert r.returncode == 0, r.stderr
    assert len(bundle_dirs(out, "good")) == 1
    r = run_cli("build", "--domain", "bad", "--domains-dir", str(dd), "--out", str(out), "--workspace",
                str(tmp_path / "ws"), "--profile", "text-only")
    assert "bad/domain.toml:2: invalid TOML: Invalid value" in one_line_error(r)
    r = run_cli("domains", "--domains-dir", str(dd), "--test", "--json")
    rows = json.loads(r.stdout)
    assert r.returncode == 0 and {x["name"] for x in rows if x.get("broken")} == {"bad"}
    assert "good" in {x["name"] for x in rows if not x.get("broken")}


def test_hidden_folders_are_not_packs(tmp_path):
    make_pack(tmp_path, ".good.x1.tmp", name="good")
    make_pack(tmp_path, "good")
    packs, broken = scan([tmp_path])
    assert packs["good"].path.name == "good" and not broken


# --------------------------------------------------------------------------- 6. other

def _hold_in_child(tmp: Path) -> subprocess.Popen:
    """A process holding the writer lock of `tmp` like a live build does."""
    code = ("import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR); fcntl.flock(fd, fcntl.LOCK_EX); "
            "print('locked', flush=True); time.sleep(600)")
    p = subprocess.Popen([sys.executable, "-c", code, str(tmp / ".writer.lock")], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "locked"
    return p


def test_killed_builds_leave_nothing_behind_for_long(bundle, tmp_path):
    """A writer killed mid-bundle leaves `.tmp-bundle-*`; the next write removes it, but not
    the temporary folder of a writer that is still running."""
    from outputs.bundle import remove_stale_temp, write_bundle
    out = tmp_path / "out"
    code = ("import sys, shutil, time; sys.path.insert(0, sys.argv[1]); from pathlib import Path; "
            "from outputs import bundle as B; shutil.copyfile = lambda *a, **k: (print('writing', flush=True), "
            "time.sleep(600)); src = Path(sys.argv[2]) / 'src0.txt'; "
            "B.write_bundle(Path(sys.argv[2]) / 'out', domain='_mock', seed=9, generator_version='t', facts_json={}, "
            "plan_json={}, reports={}, artifacts=[{'path': 'e/a.txt', 'file': src, 'family': 'f', 'kind': 'k', "
            "'artifact_id': 'a', 'fact_ids': []}])")
    p = subprocess.Popen([sys.executable, "-c", code, str(Path(__file__).resolve().parents[1]), str(tmp_path)],
                         stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "writing"
    (killed,) = list((out / "bundles" / "_mock").glob(".tmp-bundle-*"))
    p.send_signal(signal.SIGKILL)
    p.wait()
    live = out / "bundles" / "_mock" / ".tmp-bundle-live"
    live.mkdir()
    (live / ".writer.lock").touch()
    holder = _hold_in_child(live)
    try:
        assert remove_stale_temp(out) == [killed]
        assert live.is_dir() and not killed.exists()
    finally:
        holder.kill()
        holder.wait()
    write_bundle(out, domain="_mock", seed=1, generator_version="t", facts_json={}, plan_json={}, reports={},
                 artifacts=[])
    assert not list((out / "bundles").glob("*/.tmp-bundle-*"))


def test_lock_file_is_not_part_of_the_bundle(bundle):
    from outputs.bundle import verify_bundle
    assert not (bundle / ".writer.lock").exists() and verify_bundle(bundle) == []


def test_reviewer_names_are_normalised(tmp_path, hand_facts):
    from audits.queue import AuditQueue, normalise_reviewer

    from .test_queue import make_bundle
    assert normalise_reviewer("  ALICE \t Smith ") == normalise_reviewer("alice smith") == "alice smith"
    assert normalise_reviewer("ＡＬＩＣＥ") == "alice"
    b = make_bundle(tmp_path / "b", "0.1.0+v1", hand_facts, {"a1": ("text", [hand_facts[0].id])})
    q = AuditQueue(tmp_path / "q.sqlite")
    q.enqueue(b)
    item = q.next_item("ALICE")
    q.submit(item.id, "ALICE", {hand_facts[0].id: "absent"}, False, "")
    assert q.next_item("alice") is None and q.next_item(" Alice ") is None
    with pytest.raises(FactforgeError, match="already reviewed"):
        q.submit(item.id, "alice", {hand_facts[0].id: "absent"}, False, "")
    assert q.status()["reviewers"] == {"alice": 1}
    q.close()


def test_old_databases_get_their_reviewer_names_normalised(tmp_path, hand_facts):
    from audits.queue import AuditQueue

    from .test_queue import make_bundle
    b = make_bundle(tmp_path / "b", "0.1.0+v1", hand_facts, {"a1": ("text", [hand_facts[0].id])})
    db = tmp_path / "q.sqlite"
    q = AuditQueue(db)
    q.enqueue(b)
    q.close()
    con = sqlite3.connect(db)
    con.execute("DELETE FROM meta WHERE key = 'reviewer_names'")
    con.execute("INSERT INTO reviews(item_id, reviewer, verdicts, realistic, comment) VALUES (1, 'BOB', '{}', 1, '')")
    con.commit()
    con.close()
    q = AuditQueue(db)
    assert q.status()["reviewers"] == {"bob": 1}
    q.close()
    con = sqlite3.connect(db)
    con.execute("DELETE FROM meta WHERE key = 'reviewer_names'")
    con.execute("INSERT INTO reviews(item_id, reviewer, verdicts, realistic, comment) VALUES (1, 'Bob ', '{}', 1, '')")
    con.commit()
    con.close()
    with pytest.raises(FactforgeError, match="item 1 has reviews by 'bob' and 'Bob '"):
        AuditQueue(db)


def _voicemail(tmp_path: Path, text: str, voice) -> "object":
    from facts.hashing import file_sha256
    from transforms.extract import audio as A
    from transforms.render import Rendered
    p = tmp_path / f"{hashlib.sha256((text + voice.name).encode()).hexdigest()[:12]}.wav"
    A.write_wav(p, A.telephone(A.synthesize(text, voice, tmp_path)))
    return Rendered(artifact_id="vm-0001", kind="recordings/voicemail", path="evidence/recordings/voicemail/vm-0001.wav",
                    file=str(p), sha256=file_sha256(p), size=p.stat().st_size, fact_ids=())


def test_leak_scan_does_not_fail_a_variant_on_a_speech_near_miss(tmp_path):
    """The spokewell variant's database has a customer "Toby Reyes"; the base pack's agent is
    "Tobin Reyes". Said in the staff voice, the first pass hears "tobin reyes" (a suspect);
    the stricter pass, where the variant's own names compete, hears "toby reyes": no leak.
    The base name itself, said in either voice, survives both passes and is a leak."""
    from audits.leaks import scan
    from domains.variants import resolve
    from transforms.extract import audio as A
    world = resolve("_mock@spokewell")
    facts = world.factset()
    db = {"customers": {"CL1000": {"id": "CL1000", "name": "Toby Reyes"}}}
    near = _voicemail(tmp_path, "Hi, this is Toby Reyes.", A.STAFF_VOICES[0])
    rep = scan(world, facts, [near], tmp_path / "cache", db)
    assert rep["summary"]["hits"] == 0, rep["leaks"]
    assert rep["unconfirmed"] == [{"file": near.path, "extractor": "asr-pocketsphinx-grammar", "what": "brand",
                                   "origin": "brand.agents[1]"}]
    assert "Tobin" not in json.dumps(rep)  # the report ships in the bundle: no base string for non-leaks
    for voice in (A.STAFF_VOICES[0], A.CALLER_VOICES[0]):
        real = _voicemail(tmp_path, "Hi, this is Tobin Reyes.", voice)
        rep = scan(world, facts, [real], tmp_path / "cache", db)
        assert [(h["term"], h["extractor"]) for h in rep["leaks"]] == [
            ("Tobin Reyes", "asr-pocketsphinx-grammar+strict")], (voice, rep)


def test_a_file_name_with_a_newline_is_one_problem_line(bundle):
    (bundle / "evidence" / "two\nlines").write_text("x")
    r = cli_verify(bundle)
    assert r.returncode == 1 and "extra: 'evidence/two\\nlines' (not in manifest)" in r.stderr.splitlines()


def test_a_lone_leading_pipe_is_reported_not_looped_on():
    """Found by the property suite: a list line whose dash follows a stray '|' ("|- A customer
    may rent...") matched no block rule, the paragraph rule consumed nothing, and the parser
    appended empty blocks until the machine ran out of memory (21 GB)."""
    from facts.decompose import decompose_markdown
    text = "# P\n\n## Rentals\n\n- The security deposit is $50 per bike.\n|- A customer may rent at most 3 bikes.\n"
    fs = decompose_markdown(text.encode(), "_mock", "policy.md")
    assert [f.statement for f in fs.facts] == ["The security deposit is $50 per bike."]
    (u,) = fs.unparsed
    assert u.line == 6 and "lone '|'" in u.reason


def _worker_refuses(_):
    from facts.errors import FactforgeError

    raise FactforgeError("this worker runs other code or tools than the build that sent the unit")


def test_a_failed_pool_unit_reports_the_workers_error_not_its_traceback_text():
    """A process pool re-raises a worker's error with the worker's traceback text chained under
    it (`_RemoteTraceback`); the build's one line is the error's own message."""
    import sys
    from concurrent.futures import ProcessPoolExecutor

    from dagster._utils.error import serializable_error_info_from_exc_info

    from pipeline.build import failure_line

    with ProcessPoolExecutor(1) as pool:
        try:
            pool.submit(_worker_refuses, 0).result()
        except Exception:
            info = serializable_error_info_from_exc_info(sys.exc_info())
    assert info.cause is not None and info.cause.cls_name == "_RemoteTraceback"
    assert failure_line(info) == "this worker runs other code or tools than the build that sent the unit"
