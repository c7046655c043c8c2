"""The human audit review queue: enqueue, leases, reviews, consensus, re-queue, Fleiss' kappa,
the CLI, and several processes reviewing on one database file at once."""
from __future__ import annotations

import json
import multiprocessing as mp
import sqlite3
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audits.queue import AuditQueue, consensus, fleiss_kappa
from audits.queue_cli import app
from facts.errors import FactforgeError
from facts.hashing import sha256_hex
from facts.models import FactSet

KIND = "conversations/chat_transcript"


def make_bundle(root: Path, version: str, facts, artifacts: dict[str, tuple[str, list[str]]],
                variant=None) -> Path:
    """A bundle directory: one transcript file per artifact (content, claimed fact ids), plus a
    report file without artifact id, manifest.json and facts.json."""
    bdir = root / version
    (bdir / "conversations").mkdir(parents=True)
    files = []
    for aid, (text, fact_ids) in artifacts.items():
        rel = f"conversations/{aid}.txt"
        (bdir / rel).write_text(text, encoding="utf-8")
        files.append({"path": rel, "sha256": sha256_hex(text), "size": len(text.encode()), "family": "conversations",
                      "kind": KIND, "fact_ids": fact_ids, "artifact_id": aid})
    (bdir / "report.md").write_text("report", encoding="utf-8")
    files.append({"path": "report.md", "sha256": sha256_hex("report"), "size": 6, "family": "reports",
                  "kind": "reports/audit", "fact_ids": [], "artifact_id": None})
    index: dict[str, list[str]] = {}
    for f in files:
        for fid in f["fact_ids"]:
            index.setdefault(fid, []).append(f["path"])
    manifest = {"schema_version": "1", "bundle_version": version, "domain": "_mock", "variant": variant, "seed": 7,
                "facts_hash": "x", "files": files, "fact_index": index}
    (bdir / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    fs = FactSet(domain="_mock", source_file="policy.md", facts=facts)
    (bdir / "facts.json").write_text(json.dumps(fs.model_dump(mode="json"), indent=2), encoding="utf-8")
    return bdir


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture()
def ids(hand_facts):
    return [f.id for f in hand_facts]


@pytest.fixture()
def bundle(tmp_path, hand_facts, ids):
    return make_bundle(tmp_path / "bundles", "v1", hand_facts, {
        "chat-001": ("Agent: deposit is $50", [ids[0], ids[1]]),
        "chat-002": ("Agent: late fee is $12", [ids[2]]),
        "noise-001": ("Agent: hello", []),
    })


@pytest.fixture()
def clock():
    return Clock()


@pytest.fixture()
def queue(tmp_path, clock):
    q = AuditQueue(tmp_path / "audit.sqlite", lease_seconds=60, clock=clock)
    yield q
    q.close()


def all_present(item):
    return {f.id: "present" for f in item.facts}


def test_enqueue_is_idempotent_and_stores_what_a_reviewer_needs(queue, bundle, ids, hand_facts):
    first = queue.enqueue(bundle)
    assert len(first.added) == 3 and first.existing == 0
    again = queue.enqueue(bundle)
    assert again.added == [] and again.existing == 3
    items = queue.export()
    assert [i["artifact_id"] for i in items] == ["chat-001", "chat-002", "noise-001"]  # report skipped
    chat = items[0]
    assert Path(chat["path"]).is_absolute() and Path(chat["path"]).read_text() == "Agent: deposit is $50"
    assert chat["kind"] == KIND and chat["round"] == 0 and chat["status"] == "open"
    assert chat["bundle_version"] == "v1" and chat["domain"] == "_mock" and chat["variant"] is None
    assert [f["id"] for f in chat["facts"]] == ids[:2]
    assert chat["facts"][1]["statement"] == hand_facts[1].statement and chat["facts"][1]["values"] == ["$50"]
    assert items[2]["facts"] == []
    journal = sqlite3.connect(queue.path).execute("PRAGMA journal_mode").fetchone()[0]
    assert journal == "wal"


def test_bad_bundles_are_rejected_with_the_file_named(queue, tmp_path, hand_facts, ids):
    with pytest.raises(FactforgeError, match="no manifest.json"):
        queue.enqueue(tmp_path)
    b = make_bundle(tmp_path / "b", "v1", hand_facts, {"a": ("x", ["_mock.nope.0000000000"])})
    with pytest.raises(FactforgeError, match="not in facts.json") as e:
        queue.enqueue(b)
    assert e.value.file.endswith("manifest.json")
    b = make_bundle(tmp_path / "c", "v1", hand_facts, {"a": ("x", [ids[0]])})
    (b / "conversations" / "a.txt").write_text("tampered")
    with pytest.raises(FactforgeError, match="does not match its manifest sha256"):
        queue.enqueue(b)
    assert queue.status()["items"] == 0


def test_next_never_repeats_and_stops_after_three_reviews(queue, bundle):
    queue.enqueue(bundle)
    seen: dict[str, list[int]] = {}
    for reviewer in ["ann", "bob", "cy", "dee"]:
        while (item := queue.next_item(reviewer)) is not None:
            assert item.id not in seen.get(reviewer, [])
            seen.setdefault(reviewer, []).append(item.id)
            queue.submit(item.id, reviewer, all_present(item), True, "ok")
    assert seen == {"ann": [1, 2, 3], "bob": [1, 2, 3], "cy": [1, 2, 3]}
    st = queue.status()
    assert st["complete"] == 3 and st["open"] == 0 and st["reviews"] == 9 and st["accepted"] == 3
    assert st["reviewers"] == {"ann": 3, "bob": 3, "cy": 3}


def test_leases_hold_slots_and_expire(queue, bundle, clock):
    queue.enqueue(bundle)
    assert [queue.next_item(r).id for r in ("ann", "bob", "cy")] == [1, 1, 1]
    assert queue.next_item("dee").id == 2          # item 1's three slots are leased
    assert queue.next_item("ann").id == 1          # a live lease is handed back, not a second item
    with pytest.raises(FactforgeError, match="leased to other reviewers"):
        queue.submit(1, "eve", all_present(queue.item(1)), True)
    clock.t += 61                                  # every lease expires
    assert queue.next_item("eve").id == 1
    queue.submit(1, "eve", all_present(queue.item(1)), True)
    assert queue.status()["leases"] == 0


def test_submit_validation(queue, bundle, ids):
    queue.enqueue(bundle)
    item = queue.next_item("ann")
    with pytest.raises(FactforgeError, match="does not claim fact"):
        queue.submit(item.id, "ann", {ids[0]: "present", ids[1]: "present", ids[4]: "present"}, True)
    with pytest.raises(FactforgeError, match="bad verdict"):
        queue.submit(item.id, "ann", {ids[0]: "maybe", ids[1]: "present"}, True)
    with pytest.raises(FactforgeError, match="no verdict for fact"):
        queue.submit(item.id, "ann", {ids[0]: "present"}, True)
    with pytest.raises(FactforgeError, match="no audit item 99"):
        queue.submit(99, "ann", {}, True)
    with pytest.raises(FactforgeError, match="reviewer name is empty"):
        queue.submit(item.id, "  ", all_present(item), True)
    queue.submit(item.id, "ann", all_present(item), True)
    with pytest.raises(FactforgeError, match="ann has already reviewed item 1"):
        queue.submit(item.id, "ann", all_present(item), True)
    queue.submit(item.id, "bob", all_present(item), True)
    queue.submit(item.id, "cy", all_present(item), True)
    with pytest.raises(FactforgeError, match="already has 3 reviews"):
        queue.submit(item.id, "dee", all_present(item), True)
    con = sqlite3.connect(queue.path)
    with pytest.raises(sqlite3.IntegrityError, match="three reviews"):  # the schema itself refuses a 4th
        con.execute("INSERT INTO reviews(item_id, reviewer, verdicts, realistic, comment) VALUES (1, 'x', '{}', 1, '')")
    assert queue.status()["reviews"] == 3


def test_consensus_rules():
    a, b = "f.a", "f.b"
    ok = consensus([a, b], [({a: "present", b: "present"}, True), ({a: "present", b: "absent"}, True),
                            ({a: "absent", b: "present"}, False)])
    assert ok["accepted"] and ok["facts"][a]["verdict"] == "present" and ok["realistic"] == {"yes": 2, "no": 1,
                                                                                          "majority": True}
    split = consensus([a], [({a: "present"}, True), ({a: "absent"}, True), ({a: "wrong_value"}, True)])
    assert not split["accepted"] and split["facts"][a]["verdict"] is None and split["reasons"] == [f"fact {a}: no majority"]
    wrong = consensus([a], [({a: "wrong_value"}, True), ({a: "wrong_value"}, True), ({a: "present"}, True)])
    assert not wrong["accepted"] and wrong["facts"][a]["verdict"] == "wrong_value"
    fake = consensus([], [({}, False), ({}, False), ({}, True)])
    assert not fake["accepted"] and fake["reasons"] == ["not realistic (2 of 3)"]


def review_all(queue, verdict_for, realistic_for=lambda item, r: True):
    for r in ("ann", "bob", "cy"):
        while (item := queue.next_item(r)) is not None:
            queue.submit(item.id, r, {f.id: verdict_for(item, f.id, r) for f in item.facts}, realistic_for(item, r))


def test_rejection_requeue_rounds(queue, tmp_path, hand_facts, ids):
    root = tmp_path / "bundles"
    v1 = make_bundle(root, "v1", hand_facts, {"a": ("a round 0", [ids[0]]), "b": ("b", [ids[1]]),
                                              "c": ("c round 0", [])})
    queue.enqueue(v1)
    # a: two reviewers find the fact absent; c: nobody finds it realistic; b accepted.
    review_all(queue, lambda item, fid, r: "absent" if item.artifact_id == "a" and r != "cy" else "present",
               lambda item, r: item.artifact_id != "c")
    st = queue.status()
    assert (st["accepted"], st["rejected"]) == (1, 2)
    assert queue.rejected_artifacts("_mock") == {"a": 1, "c": 1}
    assert queue.rejected_artifacts("_mock", "other-variant") == {}
    export = {i["artifact_id"]: i for i in queue.export()}
    assert export["a"]["consensus"]["reasons"] == [f"fact {ids[0]}: absent"]

    # The build regenerates a and c; b is carried unchanged.
    v2 = make_bundle(root, "v2", hand_facts, {"a": ("a round 1", [ids[0]]), "b": ("b", [ids[1]]),
                                              "c": ("c round 1", [])})
    res = queue.requeue(v2)
    assert len(res.requeued) == 2 and res.added == res.requeued and res.unchanged == []
    assert [(queue.item(i).artifact_id, queue.item(i).round, queue.item(i).status) for i in res.added] == \
        [("a", 1, "open"), ("c", 1, "open")]
    assert queue.rejected_artifacts("_mock") == {}             # latest rounds are open again
    again = queue.enqueue(v2)                                  # b unchanged: not re-reviewed
    assert again.added == [] and again.existing == 2 and again.unchanged == ["b"]

    review_all(queue, lambda item, fid, r: "present" if item.artifact_id == "a" else "absent",
               lambda item, r: False if item.artifact_id == "c" else True)
    assert queue.rejected_artifacts("_mock") == {"c": 2}

    v3 = make_bundle(root, "v3", hand_facts, {"a": ("a round 1", [ids[0]]), "c": ("c round 1", [])})
    stuck = queue.requeue(v3)                                  # c was not regenerated
    assert stuck.added == [] and stuck.still_rejected == ["c"]


def test_new_content_supersedes_an_open_item(queue, tmp_path, hand_facts, ids):
    root = tmp_path / "bundles"
    queue.enqueue(make_bundle(root, "v1", hand_facts, {"a": ("old", [ids[0]])}))
    queue.next_item("ann")
    res = queue.enqueue(make_bundle(root, "v2", hand_facts, {"a": ("new", [ids[0]])}))
    assert res.superseded == [1] and res.added == [2]
    assert queue.next_item("ann").id == 2
    with pytest.raises(FactforgeError, match="superseded"):
        queue.submit(1, "bob", {ids[0]: "present"}, True)


def test_fleiss_kappa_textbook_example():
    # Fleiss (1971) / Wikipedia: 10 subjects, 14 raters, 5 categories -> kappa 0.210.
    table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
             [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    assert fleiss_kappa(table) == pytest.approx(0.20993, abs=1e-5)
    assert fleiss_kappa([[3, 0], [0, 3]]) == pytest.approx(1.0)
    assert fleiss_kappa([[3, 0, 0], [3, 0, 0]]) is None        # undefined: all in one category
    assert fleiss_kappa([]) is None
    with pytest.raises(ValueError):
        fleiss_kappa([[3, 0], [1, 1]])


def test_status_kappa_from_reviews(queue, tmp_path, hand_facts, ids):
    queue.enqueue(make_bundle(tmp_path / "b", "v1", hand_facts,
                              {"a": ("a", [ids[0]]), "b": ("b", [ids[1]])}))
    votes = {("a", "ann"): "present", ("a", "bob"): "present", ("a", "cy"): "absent",
             ("b", "ann"): "absent", ("b", "bob"): "absent", ("b", "cy"): "absent"}
    review_all(queue, lambda item, fid, r: votes[item.artifact_id, r], lambda item, r: r != "cy")
    kappa = queue.status()["kappa"]
    assert kappa["facts"] == pytest.approx(fleiss_kappa([[2, 1, 0], [0, 3, 0]]))
    assert kappa["facts"] == pytest.approx(0.25)  # P = 2/3, Pe = (2/6)^2 + (4/6)^2 = 5/9, (1/9)/(4/9)
    assert kappa["realistic"] == pytest.approx(fleiss_kappa([[2, 1], [2, 1]]))


def test_cli(tmp_path, bundle, ids):
    runner = CliRunner()
    db = str(tmp_path / "cli.sqlite")
    r = runner.invoke(app, ["enqueue", str(bundle), "--db", db])
    assert r.exit_code == 0 and "3 item(s) queued" in r.stdout
    r = runner.invoke(app, ["next", "--reviewer", "ann", "--db", db])
    assert r.exit_code == 0 and "item 1" in r.stdout and ids[0] in r.stdout and str(bundle) in r.stdout
    r = runner.invoke(app, ["submit", "1", "--reviewer", "ann", "--all-present", "--fact", f"{ids[1]}=wrong_value",
                            "--realistic", "--comment", "deposit says $40", "--db", db])
    assert r.exit_code == 0 and "1/3 reviews" in r.stdout
    r = runner.invoke(app, ["submit", "1", "--reviewer", "ann", "--all-present", "--realistic", "--db", db])
    assert r.exit_code == 1 and r.stderr.strip() == "error: ann has already reviewed item 1"
    assert "Traceback" not in r.output
    r = runner.invoke(app, ["submit", "1", "--reviewer", "bob", "--fact", f"{ids[0]}=yes", "--realistic", "--db", db])
    assert r.exit_code == 1 and "bad verdict" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    for name in ("bob", "cy"):
        r = runner.invoke(app, ["next", "--reviewer", name, "--db", db, "--json"])
        assert json.loads(r.stdout)["id"] == 1
        r = runner.invoke(app, ["submit", "1", "--reviewer", name, "--all-present", "--not-realistic", "--db", db])
        assert r.exit_code == 0
    assert "item 1 complete: rejected" in r.stdout
    for item_id in (2, 3):
        r = runner.invoke(app, ["next", "--reviewer", "ann", "--db", db, "--json"])
        assert json.loads(r.stdout)["id"] == item_id
        r = runner.invoke(app, ["submit", str(item_id), "--reviewer", "ann", "--all-present", "--realistic", "--db", db])
        assert r.exit_code == 0
    r = runner.invoke(app, ["next", "--reviewer", "ann", "--db", db])
    assert r.exit_code == 0 and r.stdout.strip() == "no item for ann"
    r = runner.invoke(app, ["status", "--db", db, "--json"])
    st = json.loads(r.stdout)
    assert (st["items"], st["complete"], st["rejected"], st["reviews"]) == (3, 1, 1, 5)
    r = runner.invoke(app, ["status", "--db", db])
    assert "rejected 1" in r.stdout and "Fleiss' kappa" in r.stdout
    out = tmp_path / "export.json"
    r = runner.invoke(app, ["export", "--db", db, "--out", str(out)])
    exported = json.loads(out.read_text())
    assert r.exit_code == 0 and exported[0]["reviews"][0]["verdicts"][ids[1]] == "wrong_value"
    assert exported[0]["reviews"][0]["comment"] == "deposit says $40" and exported[0]["consensus"]["accepted"] is False
    r = runner.invoke(app, ["enqueue", str(tmp_path / "missing"), "--db", db])
    assert r.exit_code == 1 and "bundle directory does not exist" in r.stderr
    not_db = tmp_path / "notes.txt"
    not_db.write_text("this is not a database, just some notes " * 50)
    r = runner.invoke(app, ["status", "--db", str(not_db)])
    assert r.exit_code == 1 and "not a usable audit database" in r.stderr and "Traceback" not in r.output


def test_cli_default_db_from_environment(tmp_path, bundle, monkeypatch):
    monkeypatch.delenv("FACTFORGE_AUDIT_DB", raising=False)
    monkeypatch.setenv("FACTFORGE_WORKSPACE", str(tmp_path / "ws"))
    r = CliRunner().invoke(app, ["enqueue", str(bundle)])
    assert r.exit_code == 0 and (tmp_path / "ws" / "audit.sqlite").is_file()
    monkeypatch.setenv("FACTFORGE_AUDIT_DB", str(tmp_path / "explicit.sqlite"))
    assert CliRunner().invoke(app, ["enqueue", str(bundle)]).exit_code == 0
    assert (tmp_path / "explicit.sqlite").is_file()


def _review_worker(db: str, reviewer: str, barrier, out: str) -> None:
    """Runs in its own process: take items and review them until none is left for `reviewer`.
    It "reads" each item for a few milliseconds, so the others run while it holds a lease.
    Every fifth review it also tries to submit the same review twice, which must fail."""
    done, refused = [], 0
    with AuditQueue(db, busy_timeout=30) as q:
        barrier.wait()
        while (item := q.next_item(reviewer)) is not None:
            time.sleep(0.004)
            verdicts = {f.id: ("present" if (item.id + len(reviewer)) % 4 else "absent") for f in item.facts}
            q.submit(item.id, reviewer, verdicts, realistic=bool(item.id % 3), comment=f"{reviewer} on {item.id}")
            done.append(item.id)
            if len(done) % 5 == 0:
                try:
                    q.submit(item.id, reviewer, verdicts, realistic=True)
                except FactforgeError:
                    refused += 1
    Path(out).write_text(json.dumps({"done": done, "refused": refused}))


@pytest.mark.slow
def test_concurrent_reviewers_in_separate_processes(tmp_path, hand_facts, ids):
    n_items, reviewers = 40, ["ann", "bob", "cy", "dee", "eve"]
    bundle = make_bundle(tmp_path / "b", "v1", hand_facts,
                         {f"chat-{i:03d}": (f"transcript {i}", [ids[i % 5], ids[(i + 2) % 5]]) for i in range(n_items)})
    db = str(tmp_path / "shared.sqlite")
    with AuditQueue(db) as q:
        q.enqueue(bundle)
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(len(reviewers))
    procs = [ctx.Process(target=_review_worker, args=(db, r, barrier, str(tmp_path / f"{r}.json")))
             for r in reviewers]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=60)
    assert [p.exitcode for p in procs] == [0] * len(reviewers)

    results = {r: json.loads((tmp_path / f"{r}.json").read_text()) for r in reviewers}
    submitted = [(item, r) for r, res in results.items() for item in res["done"]]
    for r, res in results.items():
        assert len(res["done"]) == len(set(res["done"])), f"{r} reviewed an item twice"
        assert res["refused"] == len(res["done"]) // 5
    assert len(submitted) == n_items * 3

    con = sqlite3.connect(db)
    stored = con.execute("SELECT item_id, reviewer FROM reviews").fetchall()
    assert sorted(stored) == sorted(submitted)             # every submitted review stored exactly once
    per_item = dict(con.execute("SELECT item_id, COUNT(*) FROM reviews GROUP BY item_id").fetchall())
    assert set(per_item.values()) == {3} and len(per_item) == n_items
    with AuditQueue(db) as q:
        st = q.status()
    assert st["complete"] == n_items and st["open"] == 0 and st["leases"] == 0
    assert sum(st["reviewers"].values()) == n_items * 3
    assert sum(len(res["done"]) > 0 for res in results.values()) >= 3   # the work really was shared


def test_reviewer_names_are_normalised(queue, bundle):
    from audits.queue import normalise_reviewer

    assert normalise_reviewer("  ALICE  ") == normalise_reviewer("alice") == "alice"
    assert normalise_reviewer("Mary   Ann\tLee") == "mary ann lee"
    queue.enqueue(bundle)
    item = queue.next_item("ALICE")
    assert queue.next_item(" alice ").id == item.id      # one reviewer: the same lease comes back
    queue.submit(item.id, "Alice", all_present(item), True)
    with pytest.raises(FactforgeError, match="alice has already reviewed"):
        queue.submit(item.id, "ALICE", all_present(item), True)
    assert queue.next_item("aLiCe").id != item.id
    assert queue.release(queue.next_item("bob").id, "BOB")
    assert queue.status()["reviewers"] == {"alice": 1}
    with pytest.raises(FactforgeError, match="reviewer name is empty"):
        queue.next_item("   ")
