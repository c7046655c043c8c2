"""`factforge import-tau2`: tau2-bench domain folders -> factforge domain packs.

The shared tau2-bench folders are read in place and imported into tmp_path only (their data
is never copied into the project); the error and edge cases use small folders written here.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from domains import BUILTIN_DIR, load_pack
from domains.tau2 import DEFAULT_NOW, guess_business, harvest_customers, import_tau2_domain, parse_now
from facts.errors import FactforgeError

from .conftest import tau2_data

ROOT = Path(__file__).resolve().parents[1]

POLICY = """# Kayak Hire Policy

The current time is 2025-07-01 08:30:00 PDT.

## Hires

- A kayak hire lasts at most 4 hours.
- The hire fee is $30 per kayak.
"""


MULTIDOC = Path(__file__).resolve().parent / "fixtures" / "tau2_layouts" / "telecom_multidoc"


def tau2_folder(name: str) -> Path:
    return tau2_data(name)


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """Each shared tau2 domain imported once (with fact counts), keyed by folder name."""
    into = tmp_path_factory.mktemp("imported")
    cache = {}

    def get(folder: str):
        if folder not in cache:
            cache[folder] = import_tau2_domain(tau2_folder(folder), f"tau2_{folder}", into)
        return cache[folder]
    return get


def small_folder(tmp_path: Path, policy: str = POLICY, db: object = None, docs: dict | None = None) -> Path:
    src = tmp_path / "src" / "kayaks"
    src.mkdir(parents=True)
    if policy is not None:
        (src / "policy.md").write_text(policy, encoding="utf-8")
    if db is not None:
        (src / "db.json").write_text(json.dumps(db), encoding="utf-8")
    if docs is not None:
        (src / "documents").mkdir()
        for fname, d in docs.items():
            (src / "documents" / fname).write_text(d if isinstance(d, str) else json.dumps(d), encoding="utf-8")
    return src


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# --- the shared tau2-bench folders --------------------------------------------------------
def test_airline_policy_verbatim_tasks_kept_clock_from_policy(imported):
    src = tau2_folder("airline")
    rep = imported("airline")
    pack = load_pack(rep.path)
    assert pack.name == "tau2_airline" and pack.info.business == "airline" == rep.business
    assert (rep.path / "policy.md").read_bytes() == (src / "policy.md").read_bytes()
    assert (rep.path / "tasks.json").read_bytes() == (src / "tasks.json").read_bytes()
    assert rep.tasks == len(json.loads((src / "tasks.json").read_text())) > 0
    assert pack.info.now.isoformat() == "2024-05-15T15:00:00-05:00" and rep.now_from == "policy"
    assert pack.info.timezone == "America/New_York"
    assert not (rep.path / "db.json").exists() and pack.database() == {}
    b = pack.brand
    assert b.company == "Tau2 Airline Co." and b.email_domain == "tau2-airline.example"
    assert len(b.agents) >= 6 and len(b.managers) >= 3 and len(b.customers) >= 12
    assert rep.facts > 0 and rep.facts == len(pack.facts.facts)


def test_retail_database_loads_and_customers_come_from_it(imported):
    src = tau2_folder("retail")
    rep = imported("retail")
    pack = load_pack(rep.path)
    assert pack.info.business == "retail"
    db = pack.database()
    source_db = json.loads((src / "db.json").read_text())
    assert db == source_db
    assert rep.db_tables == {k: len(v) for k, v in source_db.items()}
    names = {f"{u['name']['first_name']} {u['name']['last_name']}" for u in source_db["users"].values()}
    assert rep.customers_from_db >= 12 and set(pack.brand.customers) <= names
    assert (rep.path / "tasks.json").read_bytes() == (src / "tasks.json").read_bytes()
    assert rep.now == DEFAULT_NOW and rep.now_from == "default"
    assert rep.facts > 0


def test_banking_knowledge_documents_become_sorted_policy_files(imported):
    src = tau2_folder("banking_knowledge")
    rep = imported("banking_knowledge")
    pack = load_pack(rep.path)
    docs = sorted((json.loads(p.read_text()) for p in (src / "documents").glob("*.json")), key=lambda d: d["id"])
    with_content = [d for d in docs if d.get("content", "").strip()]
    files = pack.policy_files()
    assert not (rep.path / "policy.md").exists()
    assert len(files) == len(with_content) == rep.documents
    assert [f.name for f in files] == sorted(f.name for f in files)
    for f, d in ((files[0], with_content[0]), (files[-1], with_content[-1])):
        text = f.read_text()
        assert text.startswith(f"# {d['title']}\n\n")
        assert d["content"].strip() in text
    assert pack.info.business == "banking"
    db = pack.database()
    assert set(db) == set(json.loads((src / "db.json").read_text()))
    assert rep.db_tables["users"] == len(db["users"]["data"]) > 0
    assert len(pack.brand.customers) >= 12 and rep.customers_from_db > 0
    assert rep.tasks is None and not (rep.path / "tasks.json").exists()
    assert rep.facts > 1000
    # the chats' customers and their records come out of the wrapped tables ({"data": ...,
    # "notes": ...}): accounts, transactions, not made-up "booking" ids
    from transforms.records import db_people, record_refs
    people, records = db_people(db), record_refs(db)
    assert "Mia Smith" in {p.name for p in people}
    mine = [r for r in records if r.owner == "Mia Smith"]
    assert {r.table for r in records} >= {"accounts", "credit_card_accounts"} and mine
    assert all(r.table in db and r.id in db[r.table]["data"] for r in records[:50])


def test_import_is_deterministic(tmp_path):
    src = tau2_folder("airline")
    a = import_tau2_domain(src, "tau2_air", tmp_path / "a", decompose=False)
    b = import_tau2_domain(src, "tau2_air", tmp_path / "b", decompose=False)
    assert tree_bytes(a.path) == tree_bytes(b.path)
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["tau2_air"], "no temporary folder left"


# --- small folders: mapping details and errors --------------------------------------------
def test_documents_sorted_by_id_with_title_heading_and_gaps_reported(tmp_path):
    docs = {"b.json": {"id": "doc_b", "title": "Late Returns", "content": "## Fees\n\n- The late fee is $5 per hour."},
            "a.json": {"id": "doc_a", "title": "Opening Hours", "content": "The shop opens at 9 am every day."},
            "c.json": {"id": "doc_c", "title": "Empty", "content": "   "},
            "notes.txt": "not a document"}
    src = small_folder(tmp_path, policy=None, docs=docs)
    rep = import_tau2_domain(src, "kayaks", tmp_path / "out", decompose=False)
    assert rep.policy_files == ["policy/0001-opening-hours.md", "policy/0002-late-returns.md"]
    expected = "# Late Returns\n\n## Fees\n\n- The late fee is $5 per hour.\n"
    assert (rep.path / "policy/0002-late-returns.md").read_text() == expected
    assert any("c.json" in u and "without content" in u for u in rep.unmapped)
    assert any("notes.txt" in u for u in rep.unmapped)
    assert rep.now == DEFAULT_NOW and rep.business == "general"


def test_policy_next_to_documents_goes_first(tmp_path):
    src = small_folder(tmp_path, docs={"a.json": {"id": "a", "title": "Extra", "content": "Kayaks are blue."}})
    rep = import_tau2_domain(src, "kayaks", tmp_path / "out", decompose=False)
    assert rep.policy_files == ["policy/0000-policy.md", "policy/0001-extra.md"]
    assert (rep.path / "policy/0000-policy.md").read_text() == POLICY
    assert load_pack(rep.path).info.now.isoformat() == "2025-07-01T08:30:00-07:00"


def test_unknown_files_reported_and_customers_padded(tmp_path):
    db = {"users": {"u1": {"first_name": "Ola", "last_name": "Berg"}, "u2": {"name": "Tariq Aziz"}},
          "kayaks": [{"id": 1}, {"id": 2}, {"id": 3}]}
    src = small_folder(tmp_path, db=db)
    (src / "tools.py").write_text("x = 1\n")
    (src / "extra").mkdir()
    rep = import_tau2_domain(src, "kayaks", tmp_path / "out", decompose=False)
    assert rep.db_tables == {"users": 2, "kayaks": 3}
    pack = load_pack(rep.path)
    assert pack.brand.customers[:2] == ["Ola Berg", "Tariq Aziz"] and len(pack.brand.customers) == 12
    assert rep.customers_from_db == 2
    assert [u.split(":")[0] for u in rep.unmapped] == ["extra/", "tools.py"]


def test_facts_counted_for_small_policy(tmp_path):
    rep = import_tau2_domain(small_folder(tmp_path), "kayaks", tmp_path / "out")
    assert rep.facts >= 2 and rep.unparsed == 0


def test_existing_pack_needs_force_and_is_replaced_atomically(tmp_path):
    src = small_folder(tmp_path)
    out = tmp_path / "out"
    import_tau2_domain(src, "kayaks", out, decompose=False)
    with pytest.raises(FactforgeError, match="already exists"):
        import_tau2_domain(src, "kayaks", out, decompose=False)
    (src / "policy.md").write_text(POLICY + "- A life jacket is included with every hire.\n")
    rep = import_tau2_domain(src, "kayaks", out, force=True, decompose=False)
    assert "life jacket" in (rep.path / "policy.md").read_text()
    assert sorted(p.name for p in out.iterdir()) == ["kayaks"]


def test_errors_name_the_path(tmp_path):
    with pytest.raises(FactforgeError) as e:
        import_tau2_domain(tmp_path / "missing", "kayaks", tmp_path / "out")
    assert e.value.file == str(tmp_path / "missing")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FactforgeError, match="no policy document .* and no documents/") as e:
        import_tau2_domain(empty, "kayaks", tmp_path / "out")
    assert e.value.file == str(empty.resolve())
    bad = small_folder(tmp_path)
    (bad / "db.json").write_text('{"users": {\n  "u1": oops}\n}')
    with pytest.raises(FactforgeError, match="invalid JSON") as e:
        import_tau2_domain(bad, "kayaks", tmp_path / "out")
    assert e.value.file.endswith("db.json") and e.value.line == 2
    for name in ("Kayaks", "kay-aks", "1kayaks", "_kayaks", ""):
        with pytest.raises(FactforgeError, match="invalid domain name"):
            import_tau2_domain(bad, name, tmp_path / "out")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_default_into_uses_env_and_refuses_builtin(tmp_path, monkeypatch):
    src = small_folder(tmp_path)
    user_dir = tmp_path / "mine"
    monkeypatch.setenv("FACTFORGE_DOMAINS_DIR", str(user_dir))
    rep = import_tau2_domain(src, "kayaks", decompose=False)
    assert rep.path == user_dir.resolve() / "kayaks"
    monkeypatch.setenv("FACTFORGE_DOMAINS_DIR", str(BUILTIN_DIR))
    with pytest.raises(FactforgeError, match="built-in domains folder"):
        import_tau2_domain(src, "kayaks_two", decompose=False)
    monkeypatch.delenv("FACTFORGE_DOMAINS_DIR")
    monkeypatch.chdir(tmp_path)
    rep = import_tau2_domain(src, "kayaks_three", decompose=False)
    assert rep.path == (tmp_path / "domains-imported" / "kayaks_three").resolve()


def test_now_option_overrides_and_is_validated(tmp_path):
    src = small_folder(tmp_path)
    rep = import_tau2_domain(src, "kayaks", tmp_path / "out", now="2025-03-03T10:00:00-05:00", decompose=False)
    assert rep.now_from == "--now" and load_pack(rep.path).info.now.isoformat() == "2025-03-03T10:00:00-05:00"
    for bad in ("yesterday", "2025-03-03T10:00:00"):
        with pytest.raises(FactforgeError, match="--now"):
            import_tau2_domain(src, "kayaks_b", tmp_path / "out", now=bad, decompose=False)


def test_parse_now_and_guess_business():
    assert parse_now("The current time is 2024-05-15 15:00:00 EST.") == ("2024-05-15T15:00:00-05:00",
                                                                          "America/New_York")
    assert parse_now("the current time is 2025-02-03 09:15 +01:00")[0] == "2025-02-03T09:15:00+01:00"
    assert parse_now("current time is 2025-02-03")[0] == "2025-02-03T00:00:00+00:00"
    assert parse_now("No clock here.") is None
    assert guess_business("banking_knowledge", "") == "banking"
    assert guess_business("x", "Each flight allows one cabin bag per passenger.") == "airline"
    assert guess_business("x", "Nothing to see.") == "general"


def test_cli_import_and_error_line(tmp_path):
    src = small_folder(tmp_path)
    env = {**os.environ, "FACTFORGE_DOMAINS_DIR": ""}
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "import-tau2", str(src), "--name", "kayaks",
                        "--into", str(tmp_path / "out")], capture_output=True, text=True, cwd=ROOT, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert "imported" in r.stdout and "policy.md" in r.stdout and (tmp_path / "out/kayaks/domain.toml").is_file()
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "import-tau2", str(tmp_path / "nope"), "--name",
                        "kayaks", "--into", str(tmp_path / "out")], capture_output=True, text=True, cwd=ROOT,
                       env=env, timeout=120)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert f"{tmp_path / 'nope'}: not a folder" in " ".join(r.stderr.split())


# --- the multi-document layout (db.toml, user_db.toml, several documents, .dot workflows) ---
@pytest.fixture(scope="module")
def multidoc(tmp_path_factory):
    return import_tau2_domain(MULTIDOC, "wireless", tmp_path_factory.mktemp("multidoc"))


def test_multidoc_keeps_every_document_and_the_workflows(multidoc):
    rep = multidoc
    assert rep.policy_documents == ["main_policy.md", "tech_support_manual.md", "tech_support_workflow.md"]
    assert rep.workflows == ["workflows/data_top_up.dot", "workflows/no_service.dot"]
    assert rep.policy_files == ["policy/0000-main-policy.md", "policy/0001-tech-support-manual.md",
                                "policy/0002-tech-support-workflow.md", "policy/0003-workflow-data-top-up.md",
                                "policy/0004-workflow-no-service.md"]
    for dot in ("data_top_up.dot", "no_service.dot"):
        assert (rep.path / "workflows" / dot).read_bytes() == (MULTIDOC / "workflows" / dot).read_bytes()
    flow = (rep.path / "policy/0004-workflow-no-service.md").read_text()
    assert flow.startswith("## Workflow: No service troubleshooting\n")
    assert "2. Is airplane mode on?\n   - If yes, turn airplane mode off and wait 30 seconds (step 3).\n" \
           "   - If no, go to step 4.\n" in flow
    assert sorted(u.split(":")[0] for u in rep.unmapped) == ["README.md", "main_policy_solo.md", "split_tasks.json"]
    assert any("solo-mode variant of main_policy.md" in u for u in rep.unmapped)


def test_multidoc_sections_start_with_their_document(multidoc):
    pack = load_pack(multidoc.path)
    fs = pack.facts
    by_file: dict[str, set] = {}
    for f in fs.facts:
        by_file.setdefault(Path(f.source.file).name, set()).add(f.section[0])
    assert by_file == {"0000-main-policy.md": {"Wireless Care Agent Policy"},
                       "0001-tech-support-manual.md": {"TECH SUPPORT MANUAL"},
                       "0002-tech-support-workflow.md": {"Tech Support Workflow"},
                       "0003-workflow-data-top-up.md": {"Workflow: Data top-up"},
                       "0004-workflow-no-service.md": {"Workflow: No service troubleshooting"}}
    kinds = {f.statement: f.kind.value for f in fs.facts}
    assert kinds["Each plan specifies: top-up price per GB."] == "definition"
    assert kinds["toggle_data_saver(): Switch the Data Saver restriction on or off."] == "definition"
    steps = [f for f in fs.facts if f.section == ["Workflow: No service troubleshooting"]]
    assert sum(f.kind.value == "procedure_step" for f in steps) >= 7
    assert multidoc.facts == len(fs.facts) and multidoc.unparsed == len(fs.unparsed) == 1


def test_multidoc_database_user_database_names_and_clock(multidoc):
    pack = load_pack(multidoc.path)
    db = pack.database()
    assert [c["full_name"] for c in db["customers"]] == ["Odile Fairbanks", "Tomasz Wrenfield"]
    assert db["customers"][0]["date_of_birth"] == "1987-04-12" and db["customers"][0]["created_at"] == "2024-02-01T10:15:00"
    assert multidoc.db_source == "db.toml" and multidoc.db_tables == {"plans": 2, "customers": 2, "lines": 3, "bills": 2}
    user_db = json.loads((multidoc.path / "user_db.json").read_text())
    assert user_db["device"]["network_mode"] == "3g_only" and multidoc.user_db_tables == {"device": 4, "surroundings": 2}
    assert pack.brand.customers[:2] == ["Odile Fairbanks", "Tomasz Wrenfield"] and multidoc.customers_from_db == 2
    assert pack.info.business == "telecom" and pack.info.now.isoformat() == "2025-03-10T09:30:00-05:00"
    assert json.loads((multidoc.path / "tasks.json").read_text())[0]["id"] == "slow_data_0"


def test_multidoc_import_is_deterministic(tmp_path):
    a = import_tau2_domain(MULTIDOC, "wireless", tmp_path / "a", decompose=False)
    b = import_tau2_domain(MULTIDOC, "wireless", tmp_path / "b", decompose=False)
    assert tree_bytes(a.path) == tree_bytes(b.path)


def test_bad_toml_dot_and_utf8_name_file_and_line(tmp_path):
    def copy() -> Path:
        dst = tmp_path / "src" / f"telecom_{len(list((tmp_path).glob('src/*')))}"
        shutil.copytree(MULTIDOC, dst)
        return dst
    src = copy()
    (src / "db.toml").write_text("[[plans]]\nplan_id = \"P\"\nprice = oops\n")
    with pytest.raises(FactforgeError, match="invalid TOML") as e:
        import_tau2_domain(src, "wireless", tmp_path / "out")
    assert e.value.file.endswith("db.toml") and e.value.line == 3
    src = copy()
    (src / "workflows" / "no_service.dot").write_text("digraph g {\n  a -> b;\n  c -> ;\n}\n")
    with pytest.raises(FactforgeError, match="DOT syntax") as e:
        import_tau2_domain(src, "wireless", tmp_path / "out")
    assert e.value.file.endswith("no_service.dot") and e.value.line == 3
    src = copy()
    (src / "tech_support_manual.md").write_bytes(b"# Manual\n\nFine line.\nBad \xff byte.\n")
    with pytest.raises(FactforgeError, match="UTF-8") as e:
        import_tau2_domain(src, "wireless", tmp_path / "out")
    assert e.value.file.endswith("tech_support_manual.md") and e.value.line == 4
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_person_names_from_every_field_style():
    db = {"customers": [{"full_name": "Ada  Lovelace"}, {"name": {"first_name": "Alan", "last_name": "Turing"}},
                        {"first_name": "Grace", "last_name": "Hopper"}, {"name": "Edsger Dijkstra"}, {"id": 5}]}
    assert harvest_customers(db) == ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra"]
