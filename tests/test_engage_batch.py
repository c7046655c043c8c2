"""Batch runs of engagements (`factforge engage PACK --task all --out RUN`): side by side in
processes and on a Dask cluster, resumed without re-running a finished engagement, a broken one
cleaned and re-run; and `factforge results` over runs: the per-domain table, the difference
between two runs, CSV, JSON and HTML, and hostile record files."""
from __future__ import annotations

import csv
import io
import json
import os
import shutil
from pathlib import Path

import pytest

from outputs.evaluator.sandbox import bwrap_path

from .test_engage import GREETING, HELD, SCRIPT_STEPS, without_timings
from .test_hardening import run_main

TASKS = ["_mock-client-knows", "_mock-records-only"]
needs_bwrap = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap (bwrap) is not installed")


def batch(pack, developer, out, tasks=("all",), **kw):
    from outputs.engage.batch import BatchConfig, run_batch
    from outputs.engage.run import EngageConfig
    spread = {k: kw.pop(k) for k in ("jobs", "engine", "dask_address") if k in kw}
    base = EngageConfig(pack=pack, task="", developer=developer, out=Path(), gateway_mock_response=GREETING, **kw)
    lines: list[dict] = []
    outcome = run_batch(BatchConfig(base=base, tasks=list(tasks), out=out, **spread), on_done=lines.append)
    return outcome, lines


def records(run: Path) -> dict[str, dict]:
    return {t: json.loads((run / t / "engagement.json").read_text()) for t in TASKS}


@pytest.fixture(scope="module")
def runs(mock_task_pack, tmp_path_factory):
    """Two batches over both `_mock` tasks, two engagements side by side: `starting`, and a
    script that asks the owner for the held fact, writes an agent and submits."""
    tmp = tmp_path_factory.mktemp("batches")
    floor, _ = batch(mock_task_pack, "starting", tmp / "starting", jobs=2)
    script = tmp / "elicit.json"
    script.write_text(json.dumps({"face": "mcp", "steps": SCRIPT_STEPS}), encoding="utf-8")
    elicit = None
    if bwrap_path() is not None:
        elicit, _ = batch(mock_task_pack, f"scripted:{script}", tmp / "scripted", jobs=2)
    return tmp, floor, elicit


# --------------------------------------------------------------------------- batches

@pytest.mark.slow
def test_a_batch_over_all_tasks_runs_each_engagement_into_its_folder(runs, mock_task_pack):
    tmp, floor, _ = runs
    run = tmp / "starting"
    assert sorted(floor.ran) == TASKS and not floor.reused and not floor.failed
    data = json.loads((run / "run.json").read_text())
    from outputs.packs.store import Pack
    assert data["pack_version"] == Pack(mock_task_pack).index.pack_version
    assert data["developer"]["spec"] == "starting" and data["settings"]["seed"] == 0
    recs = records(run)
    assert [t["task"] for t in data["tasks"]] == [t.id for t in Pack(mock_task_pack).tasks]
    for entry in data["tasks"]:
        rec = recs[entry["task"]]
        assert entry == {"task": rec["engagement"]["task"], "state": "done", "final_score": rec["score"]["final_score"]}
        assert rec["end"]["reason"] == "starting" and (run / entry["task"] / "report.html").is_file()
    # a batch's engagement is the engagement run alone
    from outputs.engage.run import EngageConfig, run_engagement
    alone = run_engagement(EngageConfig(pack=mock_task_pack, task=TASKS[1], developer="starting",
                                        out=tmp / "alone", gateway_mock_response=GREETING))
    for rec in (alone, recs[TASKS[1]]):
        rec["engagement"].pop("pack")
    assert without_timings(alone) == without_timings(recs[TASKS[1]])


def test_resuming_keeps_finished_engagements_and_reruns_a_truncated_one(runs, mock_task_pack, tmp_path):
    from facts.errors import FactforgeError
    run = tmp_path / "run"
    shutil.copytree(runs[0] / "starting", run, symlinks=True)
    kept, cut = run / TASKS[0] / "engagement.json", run / TASKS[1] / "engagement.json"
    before = os.stat(kept).st_mtime_ns, kept.read_bytes()
    cut.write_bytes(cut.read_bytes()[:1000])
    (run / TASKS[1] / "left-over").write_text("from the cut-short engagement")
    outcome, lines = batch(mock_task_pack, "starting", run, jobs=2)
    assert outcome.reused == [TASKS[0]] and outcome.ran == [TASKS[1]] and not outcome.failed
    assert (os.stat(kept).st_mtime_ns, kept.read_bytes()) == before
    assert [x["state"] for x in lines] == ["reused", "done"]
    assert json.loads(cut.read_text())["end"]["reason"] == "starting"
    assert not (run / TASKS[1] / "left-over").exists()
    assert (run / "run.json").read_bytes() == (runs[0] / "starting" / "run.json").read_bytes()
    # nothing left to do: nothing runs
    again, _ = batch(mock_task_pack, "starting", run, jobs=2)
    assert sorted(again.reused) == TASKS and not again.ran and os.stat(kept).st_mtime_ns == before[0]
    # one folder, one batch: other settings, another developer or a folder that is no batch are refused
    with pytest.raises(FactforgeError, match="settings.seed is 0 there, 1 here"):
        batch(mock_task_pack, "starting", run, seed=1)
    with pytest.raises(FactforgeError, match="batch of other developer"):
        batch(mock_task_pack, "cmd:true", run)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(FactforgeError, match="holds no run.json"):
        batch(mock_task_pack, "starting", tmp_path / "other")


def test_a_failed_engagement_is_the_tasks_state_and_is_retried(mock_task_pack, tmp_path, monkeypatch, capsys):
    from facts.errors import FactforgeError
    from outputs.engage import batch as batch_module

    def broken(cfg, progress=None):
        Path(cfg.out).mkdir()
        (Path(cfg.out) / "kit").mkdir()
        raise FactforgeError("the developer could not start")
    monkeypatch.setattr(batch_module, "run_engagement", broken)
    outcome, lines = batch(mock_task_pack, "starting", tmp_path / "run", tasks=TASKS[::-1], jobs=1)
    assert outcome.failed == TASKS[::-1] and not outcome.ran
    data = json.loads((tmp_path / "run" / "run.json").read_text())
    assert {t["task"]: (t["state"], t["error"]) for t in data["tasks"]} == {
        t: ("failed", "the developer could not start") for t in TASKS}
    seen = []
    monkeypatch.setattr(batch_module, "engage_one", lambda cfg: seen.append(sorted(os.listdir(cfg.out.parent))) or
                        {"task": cfg.task, "state": "failed", "error": "again"})
    batch(mock_task_pack, "starting", tmp_path / "run", tasks=["all"], jobs=1)
    assert seen == [["run.json"], ["run.json"]]          # each cut-short folder removed before its retry
    code, out, err = run_main(["results", str(tmp_path / "run")], capsys, monkeypatch)
    assert code == 0 and f"not finished, left out: {', '.join(TASKS)}" in out, err


def test_the_command_line_forms_of_a_batch(mock_task_pack, tmp_path, capsys, monkeypatch):
    pack = str(mock_task_pack)
    code, _, err = run_main(["engage", pack, "--task", TASKS[0], "--developer", "starting", "--out",
                             str(tmp_path / "o"), "--jobs", "2"], capsys, monkeypatch)
    assert code == 2 and "apply to batch runs" in err and err.count("\n") == 1
    code, _, err = run_main(["engage", pack, "--task", "all", "--task", TASKS[0], "--developer", "starting", "--out",
                             str(tmp_path / "o")], capsys, monkeypatch)
    assert code == 1 and "give it alone or name the tasks" in err and err.count("\n") == 1
    code, _, err = run_main(["engage", pack, "--task", TASKS[0], "--task", "_mock-nope", "--developer", "starting",
                             "--out", str(tmp_path / "o")], capsys, monkeypatch)
    assert code == 1 and "no task '_mock-nope'" in err and not (tmp_path / "o").exists()
    for address, expect in (("not an address", "is not a scheduler address: missing port number"),
                            ("tcp://127.0.0.1:1", "cannot reach the Dask scheduler at tcp://127.0.0.1:1")):
        code, _, err = run_main(["engage", pack, "--task", "all", "--developer", "starting", "--out",
                                 str(tmp_path / "o"), "--engine", "dask", "--dask-address", address], capsys, monkeypatch)
        assert code == 1 and expect in err and err.count("\n") == 1 and not (tmp_path / "o").exists(), err
    code, _, err = run_main(["engage", pack, "--task", "all", "--developer", "starting", "--out", str(tmp_path / "o"),
                             "--dask-address", "tcp://127.0.0.1:1"], capsys, monkeypatch)
    assert code == 2 and "--dask-address needs --engine dask" in err


@pytest.mark.slow
def test_a_batch_on_a_local_dask_cluster_of_two_workers(runs, mock_task_pack, tmp_path):
    pytest.importorskip("distributed")
    outcome, lines = batch(mock_task_pack, "starting", tmp_path / "run", jobs=2, engine="dask")
    assert sorted(outcome.ran) == TASKS and sorted(x["task"] for x in lines) == TASKS
    assert (tmp_path / "run" / "run.json").read_bytes() == (runs[0] / "starting" / "run.json").read_bytes()
    assert without_timings(records(tmp_path / "run")[TASKS[0]])["score"] == \
        without_timings(records(runs[0] / "starting")[TASKS[0]])["score"]


# --------------------------------------------------------------------------- results

@needs_bwrap
def test_results_of_two_runs_per_domain_with_the_difference(runs, tmp_path, capsys, monkeypatch):
    tmp, _, _ = runs
    floor, elicit = records(tmp / "starting"), records(tmp / "scripted")
    assert elicit["_mock-client-knows"]["tools"]["owner"]["held_elicited"] == [HELD]
    args = [str(tmp / "starting"), str(tmp / "scripted")]
    code, out, err = run_main(["results", *args, "--csv", str(tmp_path / "t.csv"), "--html", str(tmp_path / "t.html")],
                              capsys, monkeypatch)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split("|")[1].strip() == "starting" and "scripted:" in lines[0].split("|")[2]
    assert " minus starting" in lines[0]
    assert [ln.split("|")[0].strip() for ln in lines[3:5]] == ["_mock", "overall"]
    code, out, _ = run_main(["results", *args, "--json"], capsys, monkeypatch)
    table = json.loads(out)
    assert table["domains"] == ["_mock", "overall"]
    for run, recs in zip(table["runs"], (floor, elicit)):
        g = run["groups"]["overall"]
        passed = sum(round(r["score"]["pass_rate"] * r["score"]["conversations"]) for r in recs.values())
        scored = sum(r["score"]["conversations"] for r in recs.values())
        assert (g["tasks"], g["passed"], g["conversations"]) == (2, passed, scored)
        assert g["ci"]["low"] <= g["pass_rate"] <= g["ci"]["high"]
        assert g["final_score"] == round(sum(r["score"]["final_score"] for r in recs.values()) / 2, 6)
        assert g["owner_turns"] == sum(r["tools"]["owner"]["turns"] for r in recs.values()) / 2
        assert g["developer_usd"] == 0.0 and run["groups"]["_mock"] == g
    assert table["runs"][1]["groups"]["overall"]["owner_turns"] == 0.5       # asked on the task with an owner
    diff = table["differences"][0]["groups"]["overall"]
    a, b = (t["groups"]["overall"] for t in table["runs"])
    assert diff["paired_tasks"] == 2 and diff["pass_rate"] == round(b["pass_rate"] - a["pass_rate"], 6)
    assert diff["ci"]["low"] <= diff["pass_rate"] <= diff["ci"]["high"]
    rows = list(csv.DictReader(io.StringIO((tmp_path / "t.csv").read_text())))
    assert [(r["row"], r["domain"]) for r in rows] == [("run", "_mock"), ("run", "overall")] * 2 + \
        [("difference", "_mock"), ("difference", "overall")]
    assert float(rows[3]["pass_rate"]) == b["pass_rate"] and rows[4]["baseline"] == "starting"
    page = (tmp_path / "t.html").read_text()
    assert "<script" not in page and "http" not in page.replace('lang="en"', "") and "minus starting" in page
    # the same inputs give the same bytes
    run_main(["results", *args, "--csv", str(tmp_path / "u.csv")], capsys, monkeypatch)
    assert (tmp_path / "u.csv").read_bytes() == (tmp_path / "t.csv").read_bytes()


def _hostile_edits():
    def nested(p):
        p.write_text("[" * 100_000 + "]" * 100_000)

    def key(path, value):
        def edit(p):
            data = json.loads(p.read_text())
            *parents, last = path.split(".")
            node = data
            for k in parents:
                node = node[k]
            node[last] = value
            p.write_text(json.dumps(data))
        return edit
    return {
        "truncated": (lambda p: p.write_bytes(p.read_bytes()[:500]), "not an engagement record: "),
        "not utf-8": (lambda p: p.write_bytes(b"\xff\xfe{}"), "not UTF-8"),
        "nan": (lambda p: p.write_text(p.read_text().replace('"final_score": 0.0', '"final_score": NaN', 1)),
                "NaN is not a JSON number"),
        "nested": (nested, "nested too deep"),
        "a string score": (key("score.final_score", "1"), "score.final_score is not a number from 0 to 1"),
        "a score over 1": (key("score.final_score", 2.5), "score.final_score is not a number from 0 to 1"),
        "a bool count": (key("score.conversations", True), "score.conversations is not a count"),
        "no owner": (key("tools", {}), "tools.owner.turns is missing"),
        "another schema": (key("schema_version", "7.0"), "schema_version '7.0'"),
        "a list": (lambda p: p.write_text("[]"), "not a JSON object"),
        "a link": (lambda p: (p.unlink(), p.symlink_to("/etc/passwd")), "a link, not a file"),
        "a fifo": (lambda p: (p.unlink(), os.mkfifo(p)), "not a regular file"),
        "huge": (lambda p: os.truncate(p, (64 << 20) + 1), "over 64 MiB"),
        "another task": (key("engagement.task", "_mock-other-task"), "task is not its batch's"),
        "a spec over the limit": (key("engagement.developer.spec", "cmd:" + "x" * (64 << 10)),
                                  "engagement.developer.spec is not a string of at most 65536 characters"),
    }


def test_a_record_holds_any_developer_spec_engage_accepts(runs, tmp_path, capsys, monkeypatch):
    """A `cmd:` developer may carry a small program on its line (the reference developers of
    `benchmarks/bench_engage_table.py` carry one question per held fact of every task, about
    11,000 characters for the built-in pack): what `engage` accepts, `results` reads back;
    a longer line is refused before anything starts."""
    from facts.errors import FactforgeError
    from outputs.engage.developers import SPEC_MAX, parse

    run = tmp_path / "run"
    shutil.copytree(runs[0] / "starting", run, symlinks=True, ignore=shutil.ignore_patterns("kit", "workspace"))
    long_spec = "cmd:python3 -c \"import base64; exec(base64.b64decode('" + "QQ" * 5_500 + "'))\""
    assert parse(long_spec).kind == "cmd" and len(long_spec) > 8192
    for target, at in [(run / t / "engagement.json", ("engagement", "developer")) for t in TASKS] + \
            [(run / "run.json", ("developer",))]:
        data = json.loads(target.read_text())
        node = data
        for k in at:
            node = node[k]
        node.update(kind="cmd", spec=long_spec)
        target.write_text(json.dumps(data))
    code, out, err = run_main(["results", str(run), "--html", str(tmp_path / "t.html")], capsys, monkeypatch)
    assert code == 0 and "Traceback" not in err, err
    with pytest.raises(FactforgeError, match=f"over {SPEC_MAX} characters"):
        parse("cmd:" + "x" * SPEC_MAX)


@pytest.mark.parametrize("name", list(_hostile_edits()))
def test_a_broken_or_hostile_record_is_one_line_naming_it(runs, name, tmp_path, capsys, monkeypatch):
    edit, expect = _hostile_edits()[name]
    run = tmp_path / "run"
    shutil.copytree(runs[0] / "starting", run, symlinks=True, ignore=shutil.ignore_patterns("kit", "workspace"))
    target = run / TASKS[1] / "engagement.json"
    edit(target)
    code, out, err = run_main(["results", str(run), "--html", str(tmp_path / "t.html")], capsys, monkeypatch)
    assert code == 1 and not out and err.count("\n") == 1, (code, out, err)
    assert err.startswith(f"error: {target}: ") and expect in err and "Traceback" not in err, err
    assert not (tmp_path / "t.html").exists()


@pytest.mark.parametrize("run_json, expect", [
    ({"schema_version": "1.0", "pack_version": "x", "developer": {"spec": "starting"},
      "tasks": [{"task": "../../etc", "state": "done"}]}, "a task entry without a task id"),
    ({"schema_version": "1.0", "pack_version": "x", "developer": {"spec": "starting"}, "tasks": "all"},
     "not a batch run"),
    ({"schema_version": "9.0", "pack_version": "x", "developer": {"spec": "starting"}, "tasks": []},
     "not a batch run of schema 1.0 (schema_version '9.0')"),
    ("not json", "not a batch run: Expecting value"),
])
def test_a_hostile_run_json_is_one_line_naming_it(run_json, expect, tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(run_json if isinstance(run_json, str) else json.dumps(run_json))
    code, out, err = run_main(["results", str(run)], capsys, monkeypatch)
    assert code == 1 and err.startswith(f"error: {run / 'run.json'}: ") and expect in err and err.count("\n") == 1


def test_labels_and_text_from_records_are_escaped_in_the_page(runs, tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    shutil.copytree(runs[0] / "starting", run, symlinks=True, ignore=shutil.ignore_patterns("kit", "workspace"))
    spec = "cmd:<script>alert(1)</script>\x1b[2J\nrm"
    data = json.loads((run / "run.json").read_text())
    data["developer"]["spec"] = spec
    (run / "run.json").write_text(json.dumps(data))
    for t in TASKS:
        p = run / t / "engagement.json"
        rec = json.loads(p.read_text())
        rec["engagement"]["developer"].update(spec=spec, kind="cmd", model="=HYPERLINK(1)")
        rec["engagement"]["isolation"] = "process"
        p.write_text(json.dumps(rec))
    code, out, err = run_main(["results", str(run), "--html", str(tmp_path / "t.html"), "--csv",
                               str(tmp_path / "t.csv")], capsys, monkeypatch)
    assert code == 0, err
    page = (tmp_path / "t.html").read_text()
    assert "<script" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;?[2J rm / =HYPERLINK(1)" in page
    assert "\x1b" not in out + page and out.splitlines()[0].count("|") == 1
    assert "unknown" in out                    # a program outside the sandbox, no metering: dollars unknown
    rows = list(csv.DictReader(io.StringIO((tmp_path / "t.csv").read_text())))
    assert rows[0]["model"] == "'=HYPERLINK(1)" and rows[0]["developer_usd"] == ""


def test_a_refused_workspace_counts_its_tests_as_failed_conversations(mock_task_pack, tmp_path, capsys, monkeypatch):
    from outputs.engage.run import EngageConfig, run_engagement
    rec = run_engagement(EngageConfig(pack=mock_task_pack, task=TASKS[1], developer="cmd:rm agent.py",
                                      out=tmp_path / "e", gateway_mock_response=GREETING))
    assert "refused" in rec["score"] and rec["score"]["tests"] == 3
    code, out, err = run_main(["results", str(tmp_path / "e"), "--json"], capsys, monkeypatch)
    assert code == 0, err
    g = json.loads(out)["runs"][0]["groups"]["overall"]
    assert (g["tasks"], g["refused"], g["passed"], g["conversations"], g["final_score"]) == (1, 1, 0, 3, 0.0)
    assert g["credits_per_conversation"] is None


def test_batches_and_results_import_no_dagster_distributed_or_matplotlib():
    import subprocess
    import sys
    root = Path(__file__).resolve().parents[1]
    code = ("import sys, outputs.engage.batch, outputs.engage.results, outputs.engage.results_render;"
            "print([m for m in ('dagster', 'distributed', 'matplotlib', 'numpy') if m in sys.modules])")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root,
                       env={**os.environ, "PYTHONPATH": str(root)}, check=True)
    assert r.stdout.strip() == "[]"


def test_a_coding_agents_metered_dollars_and_model_label_the_run(runs, tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    shutil.copytree(runs[0] / "starting", run, symlinks=True, ignore=shutil.ignore_patterns("kit", "workspace"))
    data = json.loads((run / "run.json").read_text())
    data["developer"]["spec"] = "claude-code"
    (run / "run.json").write_text(json.dumps(data))
    for t, cost, unpriced in ((TASKS[0], 0.25, 0), (TASKS[1], 0.5, 0)):
        p = run / t / "engagement.json"
        rec = json.loads(p.read_text())
        rec["engagement"]["developer"].update(spec="claude-code", kind="adapter", model="claude-sonnet-4-5")
        rec["developer_model"] = {"calls": 3, "cost_usd": cost, "unpriced": unpriced, "input_tokens": 10,
                                  "output_tokens": 5, "failed": 0, "by_model": {}}
        p.write_text(json.dumps(rec))
    code, out, err = run_main(["results", str(run), "--json"], capsys, monkeypatch)
    run0 = json.loads(out)["runs"][0]
    assert code == 0 and run0["label"] == "claude-code / claude-sonnet-4-5", err
    assert run0["groups"]["overall"]["developer_usd"] == 0.375
    p = run / TASKS[1] / "engagement.json"
    rec = json.loads(p.read_text())
    rec["developer_model"]["unpriced"] = 1                  # a call the price map does not know
    p.write_text(json.dumps(rec))
    code, out, _ = run_main(["results", str(run), "--json"], capsys, monkeypatch)
    assert json.loads(out)["runs"][0]["groups"]["overall"]["developer_usd"] is None
    rec["developer_model"]["cost_usd"] = "$1"
    p.write_text(json.dumps(rec))
    code, _, err = run_main(["results", str(run)], capsys, monkeypatch)
    assert code == 1 and "developer_model is not a model metering" in err and str(p) in err
