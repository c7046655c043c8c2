"""The review desk end to end in a real browser: Playwright driving Debian's Chromium
(/usr/bin/chromium, fresh profile, no network) against the desk served by uvicorn on a free
loopback port. Three reviewers review one item through the pages with the keyboard, one of
them rejects, and the consensus appears on the dashboard; the shortcuts move, answer, validate
and submit; the audio and video players load with their real duration; every request the
pages make stays on the desk's own origin (no CDN)."""
from __future__ import annotations

import subprocess
import wave
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from audits.desk.app import DeskConfig, create_app
from audits.desk.screenshots import launch_chromium
from audits.desk.server import ServerThread
from audits.queue import AuditQueue

from .desk_util import three_fact_bundle

TOKEN = "browser-test-token"


@pytest.fixture(scope="module")
def site(tmp_path_factory, mock_full_build):
    bundle, cache = mock_full_build
    base = tmp_path_factory.mktemp("desk-browser")
    db = base / "audit.sqlite"
    with AuditQueue(db) as q:
        q.enqueue(bundle)
    app = create_app(DeskConfig(db=db, cache_dir=cache, admin_token=TOKEN))
    with ServerThread(app) as url, sync_playwright() as p:
        ctx = launch_chromium(p, base / "profile", viewport={"width": 1400, "height": 900})
        requests: list[str] = []
        ctx.on("request", lambda r: requests.append(r.url))
        try:
            yield url, db, ctx, requests
        finally:
            ctx.close()


def sign_in(page, url: str, name: str) -> None:
    page.context.clear_cookies()
    page.goto(f"{url}/")
    page.fill("#name", name)
    with page.expect_navigation():
        page.press("#name", "Enter")


@pytest.mark.slow
def test_three_reviewers_one_rejects_consensus_on_the_dashboard(site):
    url, db, ctx, requests = site
    page = ctx.new_page()
    item_id = None
    for name, key, realistic, comment in (("Ana", "1", "y", "reads fine"), ("BEN", "P", "y", ""),
                                          ("chen", "2", "x", "value is not there")):
        sign_in(page, url, name)
        assert page.locator("#me").inner_text() == name.lower()
        current = int(page.get_attribute(".review", "data-item"))
        item_id = item_id or current
        assert current == item_id, "the three reviewers get the same item"
        n = page.locator("fieldset.fact").count()
        assert n >= 1
        if key == "P":
            page.keyboard.press("Shift+P")
        else:
            for _ in range(n):
                page.keyboard.press(key)
        page.keyboard.press(realistic)
        if comment:
            page.keyboard.press("c")
            page.keyboard.type(comment)
            page.keyboard.press("Escape")
        with page.expect_navigation():
            page.keyboard.press("s")
        assert f"Review of item {item_id} recorded" in page.locator("#flash").inner_text()

    page.goto(f"{url}/dashboard")
    row = page.locator(f'#consensus-table tr[data-item="{item_id}"]')
    assert row.count() == 1
    text = row.inner_text()
    assert "accepted" in text and "realistic 2/3" in text
    with AuditQueue(db) as q:
        item = q.item(item_id)
        reviews = q.reviews(item_id)
    assert item.facts and "2/1/0" in text
    assert [r["reviewer"] for r in reviews] == ["ana", "ben", "chen"]
    assert reviews[2]["comment"] == "value is not there" and not reviews[2]["realistic"]
    assert set(reviews[2]["verdicts"].values()) <= {"absent"}
    chen = page.locator('#reviewers tr[data-reviewer="chen"]').inner_text()
    assert "0%" in chen, "chen disagrees with the consensus"
    page.goto(f"{url}/review/{item_id}")
    assert "accepted" in page.locator("#consensus").inner_text()
    assert all(u.startswith(url) for u in requests), [u for u in requests if not u.startswith(url)]
    page.close()


def test_keyboard_shortcuts(site, tmp_path, hand_facts):
    url, db, ctx, _ = site
    with AuditQueue(db) as q:
        res = q.enqueue(three_fact_bundle(tmp_path, hand_facts))
    (item_id,) = res.added
    page = ctx.new_page()
    sign_in(page, url, "kbd")
    page.goto(f"{url}/review/{item_id}")
    facts = page.locator("fieldset.fact")
    assert facts.count() == 3

    def current() -> int:
        return page.evaluate("[...document.querySelectorAll('fieldset.fact')].findIndex(f => f.classList.contains('current'))")

    def verdicts() -> list:
        return page.evaluate("[...document.querySelectorAll('fieldset.fact')].map(f => "
                             "(f.querySelector('input[type=radio]:checked') || {}).value || null)")

    assert current() == 0
    page.keyboard.press("j")
    page.keyboard.press("j")
    assert current() == 2
    page.keyboard.press("k")
    assert current() == 1
    page.keyboard.press("3")                       # wrong value on fact 2, moves to the next unanswered
    assert verdicts() == [None, "wrong_value", None] and current() == 2
    page.keyboard.press("s")                       # incomplete: stays, marks what is missing
    assert page.url.endswith(f"/review/{item_id}")
    assert page.evaluate("[...document.querySelectorAll('.missing')].length") == 3  # 2 facts + realism
    assert current() == 0
    page.keyboard.press("p")
    assert verdicts() == ["present", "wrong_value", None] and current() == 2
    page.keyboard.press("a")
    assert verdicts() == ["present", "wrong_value", "absent"]
    page.keyboard.press("n")                       # note on the current fact
    page.keyboard.type("only in the footer")
    page.keyboard.press("Escape")
    page.keyboard.press("?")
    assert page.locator("#help").is_visible()
    page.keyboard.press("Escape")
    assert not page.locator("#help").is_visible()
    page.keyboard.press("x")
    page.keyboard.press("c")
    page.keyboard.type("three facts, one wrong")
    with page.expect_navigation():
        page.keyboard.press("Control+Enter")       # submit from inside the comment box
    with AuditQueue(db) as q:
        (rev,) = q.reviews(item_id)
    ids = [f.id for f in hand_facts[:3]]
    assert rev["reviewer"] == "kbd" and rev["realistic"] is False
    assert rev["verdicts"] == {ids[0]: "present", ids[1]: "wrong_value", ids[2]: "absent"}
    assert rev["comment"] == f"three facts, one wrong\n[{ids[2]}] only in the footer"
    page.close()


def _probe_duration(path: Path) -> float:
    from imageio_ffmpeg import get_ffmpeg_exe

    out = subprocess.run([get_ffmpeg_exe(), "-i", str(path)], capture_output=True, text=True).stderr
    h, m, s = out.split("Duration: ", 1)[1].split(",", 1)[0].split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)


def test_audio_and_video_load_with_a_duration(site):
    url, db, ctx, _ = site
    with AuditQueue(db) as q:
        media = [i for i in q.export() if i["kind"] in ("recordings/call_audio", "recordings/voicemail",
                                                         "recordings/screen_recording")]
    assert {i["kind"] for i in media} == {"recordings/call_audio", "recordings/voicemail", "recordings/screen_recording"}
    page = ctx.new_page()
    sign_in(page, url, "listener")
    for it in media:
        page.goto(f"{url}/review/{it['id']}")
        page.wait_for_function("document.querySelector('#player').readyState >= 1", timeout=30000)
        duration = page.evaluate("document.querySelector('#player').duration")
        path = Path(it["path"])
        if path.suffix == ".wav":
            with wave.open(str(path)) as w:
                expected = w.getnframes() / w.getframerate()
            assert page.evaluate("document.querySelector('#player').tagName") == "AUDIO"
        else:
            expected = _probe_duration(path)
            assert page.evaluate("document.querySelector('#player').tagName") == "VIDEO"
            assert page.evaluate("document.querySelector('#player').videoWidth") == 960
        assert duration == pytest.approx(expected, abs=0.1), it["kind"]
        assert f"Duration {duration:.1f} s." in page.locator("#duration").inner_text()
        assert page.locator("pre.transcript").first.inner_text().strip(), "the recogniser's transcript is beside it"
        page.keyboard.press("m")                   # play
        page.wait_for_function("!document.querySelector('#player').paused", timeout=10000)
        page.keyboard.press("m")                   # pause
        assert page.evaluate("document.querySelector('#player').paused")
    page.close()


@pytest.mark.slow
def test_image_zoom_and_sheet_tabs(site):
    url, db, ctx, _ = site
    with AuditQueue(db) as q:
        items = q.export()
    shot = next(i for i in items if i["kind"] == "visuals/web_screenshot")
    sheet = next(i for i in items if i["kind"] == "tables/rate_sheet")
    page = ctx.new_page()
    sign_in(page, url, "looker")
    page.goto(f"{url}/review/{shot['id']}")
    page.wait_for_function("document.querySelector('#zoomimg').complete")
    fit_width = page.evaluate("document.querySelector('#zoomimg').clientWidth")
    page.keyboard.press("+")
    assert page.locator("#zoomlevel").inner_text().endswith("%")
    assert page.evaluate("document.querySelector('#zoomimg').clientWidth") > fit_width
    page.click("button[data-zoom='1']")
    assert page.locator("#zoomlevel").inner_text() == "100%"
    assert page.evaluate("document.querySelector('#zoomimg').clientWidth") == 1280
    page.keyboard.press("0")
    assert page.locator("#zoomlevel").inner_text() == "fit"
    page.goto(f"{url}/review/{sheet['id']}")
    panes = page.locator(".sheetpane")
    assert panes.count() >= 2 and panes.nth(0).is_visible() and not panes.nth(1).is_visible()
    page.keyboard.press("]")
    assert panes.nth(1).is_visible() and not panes.nth(0).is_visible()
    page.keyboard.press("[")
    assert panes.nth(0).is_visible()
    page.close()
