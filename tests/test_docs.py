"""The documentation holds: every runnable block of README.md and docs/ runs (on `_mock`, in a
temporary workspace), every relative link points at a file, the README stays a short front
door, CHANGELOG.md names the schema versions the code writes, and no tracked file speaks of
how the software was made (numbered work items, stops, commit-hash status notes)."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
SETUP_AND_BUILD = "bash .ci/setup && .venv/bin/factforge build"
SETUP_AND_TEST = "bash .ci/setup && .venv/bin/python -m pytest -n 3 -q"

# A block runs when the line before its ```console fence (blank lines aside) is this comment.
RUNNABLE = "<!-- runnable -->"

# Process vocabulary, built from parts so that this file does not match itself.
_NUM = r" #?[0-9]+\b"
_WORK_ITEMS = "scale|evidence|language|haystack|hardening|importer|engagement|guide"
PROCESS = re.compile(
    r"\b(" + "st" + "op|" + "is" + "sue)" + _NUM
    + r"|the (" + _WORK_ITEMS + ") " + "is" + "sue"
    + r"|the " + "is" + r"sue('s|\b (asks|listed|found|lists))"
    + r"|\b(at|commit|revision) [0-9a-f]{7,12}\b(?![-\w])",
    re.IGNORECASE)


def doc_files() -> list[Path]:
    """README.md first (its walkthrough makes the bundle and pack the guides use), then docs/."""
    return [README, *sorted(DOCS.rglob("*.md"))]


_HEREDOC = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?")


def runnable_blocks(path: Path) -> list[tuple[int, str]]:
    """(line of the fence, shell script) of each runnable console block: the `$ ` lines are
    commands (a trailing backslash continues one, a here-document runs to its terminator),
    every other line is shown output."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out, i = [], 0
    while i < len(lines):
        if lines[i].strip() == "```console":
            j = i - 1
            while j >= 0 and not lines[j].strip():
                j -= 1
            start, cmds, cont, until = i + 1, [], False, None
            i += 1
            while i < len(lines) and (until is not None or lines[i].strip() != "```"):
                line = lines[i]
                if until is not None:
                    cmds[-1] += "\n" + line
                    until = None if line == until else until
                elif cont:
                    cmds[-1] += "\n" + line
                    cont = line.endswith("\\")
                elif line.startswith("$ "):
                    cmds.append(line[2:])
                    cont = line.endswith("\\")
                    m = _HEREDOC.search(line)
                    until = m.group(1) if m else None
                i += 1
            if j >= 0 and lines[j].strip() == RUNNABLE:
                out.append((start, "\n".join(cmds)))
        i += 1
    return out


def test_runnable_blocks_are_found():
    found = {p.relative_to(ROOT).as_posix(): runnable_blocks(p) for p in doc_files()}
    assert found["README.md"], "the README's walkthrough has no runnable block"
    assert sum(len(b) for b in found.values()) >= 10, found
    for name, blocks in found.items():
        for line, script in blocks:
            assert script.strip(), f"{name}:{line}: a runnable block without a '$ ' command"


@pytest.mark.end_to_end
def test_every_runnable_block_runs(tmp_path, mock_task_ws_copy):
    """README.md and docs/ in order, one shared working directory and workspace: a guide may
    use the `_mock` bundle and pack that the README's walkthrough made. The workspace starts
    with the run's `_mock` renders (content-addressed: the same files a cold one would render),
    as a user's does after their first build."""
    work, ws = tmp_path / "work", mock_task_ws_copy
    work.mkdir()
    (work / "tests").symlink_to(ROOT / "tests")  # the guides' repository paths (fixtures) resolve
    venv_bin = str(Path(sys.executable).parent)
    env = {k: v for k, v in os.environ.items()
           if k not in ("FACTFORGE_AUDIT_DB", "FACTFORGE_DOMAINS_DIR", "FACTFORGE_DESK_TOKEN", "FACTFORGE_WRITER",
                        "PYTEST_XDIST_WORKER")}
    env.update(FACTFORGE_WORKSPACE=str(ws), PATH=venv_bin + os.pathsep + env.get("PATH", ""),
               FACTFORGE_REPO=str(ROOT), NO_COLOR="1", COLUMNS="120")
    start = time.monotonic()
    for path in doc_files():
        for line, script in runnable_blocks(path):
            where = f"{path.relative_to(ROOT)}:{line}"
            t0 = time.monotonic()
            r = subprocess.run(["bash", "-c", "set -euo pipefail\n" + script], cwd=work, env=env,
                               capture_output=True, text=True, timeout=600)
            assert r.returncode == 0, f"{where} exited {r.returncode}\n$ {script}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
            assert "Traceback (most recent call last)" not in r.stderr, f"{where}\n{r.stderr[-3000:]}"
            print(f"{where}: {time.monotonic() - t0:.1f} s")
    print(f"runnable blocks: {time.monotonic() - start:.1f} s")
    # what the README's walkthrough promises of the reference agents
    scores = {a: json.loads((work / "results" / a / "results.json").read_text())["summary"]["final_score"]
              for a in ("oracle", "naive", "null")}
    assert scores["oracle"] == 1.0 and scores["null"] == 0.0 and scores["naive"] == 0.0, scores


_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


@pytest.mark.parametrize("path", [README, ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md", *sorted(DOCS.rglob("*.md"))],
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_points_at_a_file(path):
    text = path.read_text(encoding="utf-8")
    broken = []
    for m in _LINK.finditer(text):
        target = m.group(1).split("#", 1)[0]
        if not target or re.match(r"[a-z]+:", target):
            continue
        if not (path.parent / target).exists():
            broken.append(target)
    assert not broken, f"{path.relative_to(ROOT)}: links to missing files: {broken}"


def test_readme_is_a_short_front_door_with_the_two_commands():
    text = README.read_text(encoding="utf-8")
    assert len(text.encode()) < 12 * 1024, len(text.encode())
    assert SETUP_AND_BUILD in text and SETUP_AND_TEST in text
    assert SETUP_AND_TEST in (ROOT / ".ci" / "run").read_text(), ".ci/run no longer runs the README's test command"
    for guide in ("docs/building.md", "docs/new-domain.md", "docs/importing.md", "docs/audit.md",
                  "docs/packs.md", "docs/evaluating.md", "docs/scale.md", "docs/security.md",
                  "docs/benchmarks.md"):
        assert f"({guide})" in text, f"README does not link {guide}"


def test_picture_is_small():
    for png in (DOCS / "img").glob("*.png"):
        assert png.stat().st_size < 200 * 1024, png


def tracked_text_files():
    r = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    for name in r.stdout.decode().split("\0"):
        p = ROOT / name
        if not name or not p.is_file():
            continue
        data = p.read_bytes()
        if b"\0" in data[:8192]:
            continue
        yield name, data.decode("utf-8", errors="replace")


def test_process_vocabulary_pattern_matches_what_it_must():
    for bad in ("see " + "is" + "sue 12", "St" + "op 36: known problems", "what the sc" + "ale " + "is" + "sue asks",
                "built at " + "9049" + "523", "the " + "is" + "sue's bar"):
        assert PROCESS.search(bad), bad
    for good in ("a new issue date", "stop the build", "issue a refund", "Stop token", "the issue persists",
                 "sha256 at 3f2a"):
        assert not PROCESS.search(good), good


def test_no_tracked_file_speaks_of_how_it_was_made():
    assert shutil.which("git") and (ROOT / ".git").exists(), "the tests run in a git checkout (its tracked files)"
    hits = []
    for name, text in tracked_text_files():
        for n, line in enumerate(text.splitlines(), 1):
            if PROCESS.search(line):
                hits.append(f"{name}:{n}: {line.strip()[:120]}")
    assert not hits, "process vocabulary in tracked files:\n" + "\n".join(hits)


def test_license_is_the_mit_license_the_package_declares():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "Copyright (c) 2026 factforge contributors" in text
    assert re.search(r'license\s*=\s*.*MIT', (ROOT / "pyproject.toml").read_text())


def test_changelog_names_the_schema_versions_the_code_writes():
    from audits import difficulty, leaks, lints, recoverability
    from audits.queue import QUEUE_SCHEMA_VERSION
    from domains.simtests import SIMTEST_SCHEMA_VERSION
    from domains.variant_spec import VARIANT_SCHEMA_VERSION
    from facts import GENERATOR_VERSION
    from facts.models import FACT_SCHEMA_VERSION
    from outputs.api.deployment import DEPLOYMENT_SCHEMA_VERSION
    from outputs.api.service import LOG_SCHEMA_VERSION
    from outputs.bundle import BUNDLE_SCHEMA_VERSION
    from outputs.engage.batch import RUN_SCHEMA_VERSION
    from outputs.engage.record import ENGAGEMENT_SCHEMA_VERSION
    from outputs.evaluator.models import RESULTS_SCHEMA_VERSION
    from outputs.packs.menu import MENU_SCHEMA_VERSION
    from outputs.packs.phrasing import PHRASING_SCHEMA_VERSION
    from outputs.packs.spec import TASK_SCHEMA_VERSION
    from outputs.packs.store import PACK_SCHEMA_VERSION
    from transforms.plan import PLAN_SCHEMA_VERSION

    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    current = text.split("\n## ", 2)[1]  # the newest release's section
    assert current.startswith(GENERATOR_VERSION), current[:40]
    for label, version in (("bundle", BUNDLE_SCHEMA_VERSION), ("facts", FACT_SCHEMA_VERSION),
                           ("plan", PLAN_SCHEMA_VERSION),
                           ("recoverability report", recoverability.REPORT_SCHEMA_VERSION),
                           ("leaks report", leaks.LEAKS_SCHEMA_VERSION), ("lints report", lints.LINTS_SCHEMA_VERSION),
                           ("difficulty report", difficulty.REPORT_SCHEMA_VERSION),
                           ("pack", PACK_SCHEMA_VERSION), ("task spec", TASK_SCHEMA_VERSION),
                           ("deployment", DEPLOYMENT_SCHEMA_VERSION), ("variant spec", VARIANT_SCHEMA_VERSION),
                           ("model menu", MENU_SCHEMA_VERSION), ("phrasing rules", PHRASING_SCHEMA_VERSION),
                           ("held-out tests", SIMTEST_SCHEMA_VERSION), ("API call log", LOG_SCHEMA_VERSION),
                           ("results", RESULTS_SCHEMA_VERSION), ("engagement record", ENGAGEMENT_SCHEMA_VERSION),
                           ("batch run", RUN_SCHEMA_VERSION),
                           ("audit queue", QUEUE_SCHEMA_VERSION)):
        row = re.search(rf"^\| {re.escape(label)} \|[^|\n]*\| ([^ |]+) \|", current, re.MULTILINE)
        assert row, f"CHANGELOG.md has no row for the {label} schema"
        assert row.group(1) == version, f"CHANGELOG.md says {label} {row.group(1)}, the code writes {version}"


# A bare 7-12 digit hex word with letters and digits: a commit hash in prose (fact ids and
# bundle versions carry their hash after a '.' or '+', so they do not match).
SHORT_HASH = re.compile(r"(?<![.+/\w-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,12}(?![\w.-])")


def test_the_documentation_pins_no_commit():
    assert SHORT_HASH.search("builds on every profile (" + "0bf8" + "291)")
    assert not SHORT_HASH.search("_mock.rentals.9a754fa838 and 0.1.0+7864906322e0")
    hits = [f"{name}:{n}: {line.strip()[:120]}"
            for name, text in tracked_text_files() if name.endswith(".md")
            for n, line in enumerate(text.splitlines(), 1) if SHORT_HASH.search(line)]
    assert not hits, "commit hashes in the documentation:\n" + "\n".join(hits)


def test_every_page_of_docs_is_reachable_from_the_index():
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    linked = {(DOCS / m.group(1).split("#", 1)[0]).resolve() for m in _LINK.finditer(index)}
    missing = [p.relative_to(ROOT).as_posix() for p in DOCS.rglob("*.md")
               if p.name != "README.md" and p.resolve() not in linked]
    assert not missing, f"docs/README.md does not link {missing}"
