"""The command line follows one set of rules everywhere: `--version` and `-h`; an example in
every command's help and help for every option; choices listed, flags shown without a value;
`--json` on every listing command; full ids when piped; a reader that stops early is no
failure; every bad value is a usage error (exit 2, one line in one format); a run that scored
nothing because of the infrastructure says why and fails; long commands report progress."""
from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from typing import get_args

import pytest

from .test_hardening import _leaf_commands, run_main

ROOT = Path(__file__).resolve().parents[1]
AGENTS = ROOT / "tests" / "agents"


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("FACTFORGE_DEBUG", "COLUMNS")}
    return {**env, "PYTHONPATH": str(ROOT), **extra}


def _cli(*args, **kw) -> subprocess.CompletedProcess:
    env = _env(**kw.pop("env", {}))
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], capture_output=True, text=True, env=env,
                          cwd=kw.pop("cwd", ROOT), timeout=kw.pop("timeout", 300), **kw)


def _help(path: list[str], capsys, monkeypatch) -> str:
    monkeypatch.setenv("COLUMNS", "250")
    code, out, err = run_main([*path, "-h"], capsys, monkeypatch)
    assert code == 0 and not err, (path, code, err)
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory, mock_task_ws_copy):
    """The _mock pack built by `factforge pack build` with its output piped (through a warm
    workspace: the run's `_mock` renders): (pack, stderr)."""
    tmp = tmp_path_factory.mktemp("clipack")
    (tmp / "more-domains").mkdir()
    r = _cli("pack", "build", "--domain", "_mock", "--domains-dir", str(tmp / "more-domains"), "--out",
             str(tmp / "pack"), "--workspace", str(mock_task_ws_copy), "--workers", "1", timeout=900)
    assert r.returncode == 0, r.stderr
    return tmp / "pack", r.stderr


@pytest.fixture(scope="module")
def pack(built):
    return built[0]


# --------------------------------------------------------------------------- help

def test_version_and_short_help(capsys, monkeypatch):
    code, out, err = run_main(["--version"], capsys, monkeypatch)
    assert code == 0 and out == f"factforge {version('factforge')}\n" and not err
    root = _help([], capsys, monkeypatch)
    assert "--version" in root and "-h" in root and "Example: factforge " in root


def test_every_command_has_an_example_and_every_option_a_help_text(capsys, monkeypatch):
    commands = _leaf_commands()
    assert len(commands) >= 20
    for path, cmd in commands:
        text = _help(path, capsys, monkeypatch)
        example = re.search(r"Example: (factforge [^\n│]*)", text)
        assert example and shlex.split(example.group(1))[:1 + len(path)] == ["factforge", *path], (path, text)
        for p in cmd.params:
            if p.param_type_name == "option" and not p.hidden:
                assert p.help, (path, p.opts)
    for group in (["pack"], ["api"], ["client"], ["audit"]):
        assert "Example: factforge " + group[0] in _help(group, capsys, monkeypatch)


def test_flags_show_no_value_and_take_none(capsys, monkeypatch):
    for path, _ in _leaf_commands():
        assert "<bool>" not in _help(path, capsys, monkeypatch), path
    assert "<bool>" not in _help([], capsys, monkeypatch)
    for argv in (["domains", "--json", "true"], ["domains", "--json=true"]):
        code, out, err = run_main(argv, capsys, monkeypatch)
        assert code == 2 and not out, (argv, err)
        assert err.startswith("error: factforge domains: ") and err.endswith("(see 'factforge domains --help')\n")
        assert err.count("\n") == 1


@pytest.mark.parametrize("path, option, choices", [
    (["build"], "--profile", "text-only|text+image|text+image+audio|full"),
    (["build"], "--engine", "local|dask"),
    (["engage"], "--engine", "local|dask"),
    (["decompose"], "--decomposer", "builtin|llm"),
    (["eval"], "--user", "offline|llm"),
    (["eval"], "--split", "test|live"),
    (["eval"], "--isolation", "sandbox|process"),
    (["api", "serve"], "--clock", "real|virtual"),
    (["client", "chat"], "--mode", "offline|llm"),
])
def test_choice_options_list_their_choices(path, option, choices, capsys, monkeypatch):
    line = next(ln for ln in _help(path, capsys, monkeypatch).splitlines() if ln.lstrip("│* ").startswith(option + " "))
    assert f"<{choices}>" in line, line


def test_build_profiles_are_the_planners():
    from pipeline.cli import Profile
    from transforms.planner import PROFILES
    assert list(get_args(Profile)) == list(PROFILES)


# --------------------------------------------------------------------------- usage errors

BAD = [
    ["eval", "PACK", "--task", "t", "--agent", "null", "--trials", "0"],
    ["eval", "PACK", "--task", "t", "--agent", "null", "--user", "bogus"],
    ["eval", "PACK", "--task", "t", "--agent", "null", "--user", "llm"],
    ["eval", "PACK", "--task", "t", "--agent", "null", "--split", "dev"],
    ["eval", "PACK", "--task", "t", "--agent", "null", "--isolation", "none"],
    ["eval", "PACK", "--task", "t", "--agent", "null", "--step-timeout", "0"],
    ["eval", "PACK", "--task", "t", "--agent", "null", "--step-timeout", "inf"],
    ["eval", "PACK", "--task", "t", "--agent", "null", "--cpu-seconds", "nan"],
    ["eval", "PACK", "--task", "t", "--agent", "null", "--cpu-seconds", "-1"],
    ["eval", "PACK", "--task", "t", "--agent", "null", "--max-steps", "-5"],
    ["eval", "PACK", "--task", "t", "--agent", "null", "--max-steps", "1"],
    ["api", "serve", "PACK", "--task", "t", "--clock", "bogus"],
    ["api", "serve", "PACK", "--task", "t", "--port", "70000"],
    ["api", "serve", "PACK", "--task", "t", "--trial", "-1"],
    ["client", "chat", "PACK", "--task", "t", "--mode", "bogus"],
    ["client", "chat", "PACK", "--task", "t", "--mode", "llm"],
    ["build", "--domain", "_mock", "--engine", "spark"],
    ["build", "--domain", "_mock", "--workers", "-1"],
    ["build", "--domain", "_mock", "--at-once", "-2"],
    ["build", "--domain", "_mock", "--seed-timeout", "nan"],
    ["decompose", "policy.md", "--decomposer", "gpt"],
    ["pack", "build", "--out", "PACK", "--workers", "-1"],
    ["pack", "pin-ids", "--domain", "_mock", "--training", "-1"],
    ["audit", "serve", "--port", "-1"],
    ["audit", "serve", "--lease-minutes", "inf"],
    ["audit", "serve", "--lease-minutes", "0"],
    ["browse", "BUNDLE", "--port", "65536"],
]


@pytest.mark.parametrize("argv", BAD, ids=[" ".join(a) for a in BAD])
def test_bad_values_are_usage_errors_in_one_format(argv, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("FACTFORGE_WORKSPACE", str(tmp_path))
    monkeypatch.setenv("FACTFORGE_AUDIT_DB", str(tmp_path / "a.db"))
    argv = [str(tmp_path / a.lower()) if a in ("PACK", "BUNDLE") else a for a in argv]
    code, out, err = run_main(argv, capsys, monkeypatch)
    command = "factforge " + " ".join(argv[:2] if argv[0] in ("api", "client", "pack", "audit") else argv[:1])
    assert code == 2, (code, out, err)
    assert err.startswith(f"error: {command}: ") and err.endswith(f" (see '{command} --help')\n"), err
    assert err.count("\n") == 1 and "Traceback" not in err + out and "Value error" not in err


# --------------------------------------------------------------------------- listings

@pytest.mark.slow
def test_listing_commands_print_parseable_json(pack):
    rows = json.loads(_cli("domains", "--test", "--json").stdout)
    assert {"_mock", "airline"} <= {r["name"] for r in rows}
    facts = json.loads(_cli("facts", "_mock", "--json").stdout)
    assert facts["facts"] and facts["hash"]
    tasks = json.loads(_cli("pack", "list", str(pack), "--json").stdout)
    assert [t["id"] for t in tasks] == ["_mock-client-knows", "_mock-records-only"]
    assert all(t["domain"] == "_mock" and t["levers"]["ids"]["test"] > 0 for t in tasks)


@pytest.mark.slow
def test_piped_tables_keep_whole_ids(pack):
    r = _cli("pack", "list", str(pack), env={"COLUMNS": "40"})
    assert r.returncode == 0, r.stderr
    rows = [ln for ln in r.stdout.splitlines() if "_mock-" in ln]
    assert len(rows) == 2 and "_mock-client-knows" in rows[0] and "_mock-records-only" in rows[1]
    assert "…" not in r.stdout
    r = _cli("domains", "--test")
    assert any("_mock" in ln and "Pedalwise Rentals" in ln for ln in r.stdout.splitlines()), r.stdout


@pytest.mark.slow
@pytest.mark.parametrize("args", [["facts", "banking"], ["facts", "banking", "--json"], ["domains", "--test"]])
def test_a_reader_that_stops_early_is_no_failure(args):
    """`factforge facts banking | head -1`: the output is larger than the pipe holds."""
    p = subprocess.Popen([sys.executable, "-m", "pipeline.cli", *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=_env(), cwd=ROOT)
    assert p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read()
    assert p.wait(timeout=120) == 0 and err == b"", err


# --------------------------------------------------------------------------- runs

@pytest.mark.slow
def test_eval_that_scored_nothing_names_the_missing_key(pack, tmp_path):
    env = {k: v for k, v in _env().items() if not k.endswith(("_API_KEY", "_AUTH_TOKEN"))}
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "eval", str(pack), "--task", "_mock-records-only",
                        "--agent", str(AGENTS / "llm_crash_agent.py"), "--out", str(tmp_path / "o")],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert r.returncode == 1, (r.stdout, r.stderr)
    *progress, last = r.stderr.splitlines()
    assert not r.stdout and last.startswith("error: ") and not any("error" in ln for ln in progress), r.stderr
    assert "none was scored" in last and re.search(r"set [A-Z]+_API_KEY in the environment", last), last
    assert "Give Feedback" not in r.stderr and "Provider List" not in r.stderr
    summary = json.loads((tmp_path / "o" / "results.json").read_text())["summary"]
    assert summary["infra_errors"] == summary["conversations"] > 0 and summary["agent_errors"] == 0
    assert [ln.split(":")[0] for ln in progress] == [f"conversation {i} done" for i in range(1, len(progress) + 1)]
    assert len(progress) == summary["conversations"]


def test_new_domain_hint_works_as_printed(tmp_path):
    r = _cli("new-domain", "hint_demo", "--into", str(tmp_path / "my domains"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (hint,) = re.findall(r"then run `([^`]+)`", r.stdout)
    argv = shlex.split(hint)
    assert argv[:3] == ["factforge", "facts", "hint_demo"]
    ran = _cli(*argv[1:], cwd=tmp_path)
    assert ran.returncode == 0 and "facts, 0 unparsed lines" in ran.stdout, ran.stderr


def test_pack_build_takes_domains_dir(tmp_path):
    r = _cli("pack", "build", "--domain", "_mock", "--domains-dir", str(tmp_path / "nowhere"), "--out",
             str(tmp_path / "pack"), "--workspace", str(tmp_path / "ws"))
    assert r.returncode == 1 and r.stderr == f"error: {tmp_path / 'nowhere'}: domains directory does not exist\n"


def test_pack_build_reports_each_task_when_not_a_terminal(built):
    """Each task is a line on stderr as it is done."""
    done = [ln for ln in built[1].splitlines() if ln.startswith("task ")]
    assert [ln.split(": ", 1)[1].split(" ")[0] for ln in done] == ["_mock-client-knows", "_mock-records-only"]
    assert done[0].startswith("task 1 done: ") and re.search(r"\(\d+\.\ds\)$", done[1])


def test_build_progress_off_a_terminal_names_each_finished_step(tmp_path):
    import io

    from pipeline.progress import ProgressLog, ProgressView
    from transforms.pool import Tally

    path = tmp_path / "progress.jsonl"
    log = ProgressLog(str(path), "_mock")
    log.plan({"txt": 3, "pdf": 1})
    view = ProgressView(path, ["_mock"], stream=io.StringIO(), tty=False, plain_every=3600)
    conversations, documents = log.stage("render", "conversations"), log.stage("render", "documents")
    t, d = Tally(total=3, cost_total=0.06), Tally(total=1, cost_total=0.5)
    conversations(t)
    view.refresh()
    for _ in range(3):
        t.add(0.02)
    conversations(t)
    view.refresh()
    view.refresh()                      # nothing new: no line
    documents(d)
    d.add(0.5)
    documents(d)
    view.refresh()
    log.finished()
    view.refresh()
    lines = view.stream.getvalue().splitlines()
    assert len(lines) == 4, lines
    assert lines[1].endswith("(finished: render conversations)")
    assert lines[2].endswith("(finished: render documents)") and lines[3].endswith(", done")
