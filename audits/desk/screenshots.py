"""Screenshots of every viewer kind, the claims panel, the dashboard and the bundle browser,
taken in a real Chromium, for people to look at (not committed).

    python -m audits.desk.screenshots BUNDLE_DIR [--out DIR] [--cache DIR]

It queues the bundle in a fresh audit database inside DIR, serves the desk on a free loopback
port, has three reviewers work the first items through the pages (the third rejects one, so
the dashboard has consensus, kappa and a rejected artifact to show), then saves one PNG per
kind (`review-<family>-<kind>.png`), `dashboard.png`, `bundle.png`, `facts.png`,
`report-<name>.png` and `file-<kind>.png` of the browser. Playwright drives Debian's Chromium
(`$FACTFORGE_CHROMIUM`, default /usr/bin/chromium); Playwright's own browser download is not
used. Prints one line per screenshot.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from facts.errors import FactforgeError

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def chromium_path() -> str:
    return os.environ.get("FACTFORGE_CHROMIUM", "/usr/bin/chromium")


def launch_chromium(playwright, user_data_dir: str | Path, **context_args):
    """A persistent Chromium context on a fresh profile directory (Debian's binary)."""
    return playwright.chromium.launch_persistent_context(
        str(user_data_dir), executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS, **context_args)


def sign_in(page, url: str, name: str) -> None:
    page.goto(f"{url}/")
    page.fill("#name", name)
    with page.expect_navigation():
        page.click("button[type=submit]")


def review_current(page, verdict_key: str, realistic: bool) -> None:
    """Answer the item on screen with the keyboard: every fact gets `verdict_key`."""
    for _ in page.query_selector_all("fieldset.fact"):
        page.keyboard.press(verdict_key)
    page.keyboard.press("y" if realistic else "x")
    with page.expect_navigation():
        page.keyboard.press("s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bundle", type=Path)
    ap.add_argument("--out", type=Path, default=None, help="where the PNGs go (default: a new temp folder)")
    ap.add_argument("--cache", type=Path, default=None, help="the builds' cache (default: the workspace cache)")
    ap.add_argument("--width", type=int, default=1440)
    args = ap.parse_args(argv)

    from playwright.sync_api import sync_playwright  # noqa: PLC0415  (deferred: playwright)

    from audits.queue import AuditQueue  # noqa: PLC0415  (deferred: the desk, only when screenshots are taken)

    from .app import DeskConfig, create_app  # noqa: PLC0415  (deferred: the desk, only when screenshots are taken)
    from .cli import default_cache_dir  # noqa: PLC0415  (deferred: the desk, only when screenshots are taken)
    from .server import ServerThread  # noqa: PLC0415  (deferred: the desk, only when screenshots are taken)

    out = (args.out or Path(tempfile.mkdtemp(prefix="factforge-shots-"))).resolve()
    out.mkdir(parents=True, exist_ok=True)
    db = out / "screenshots-audit.sqlite"
    for stale in out.glob("screenshots-audit.sqlite*"):
        stale.unlink()
    try:
        with AuditQueue(db) as q:
            q.enqueue(args.bundle)
            items = q.export()
    except FactforgeError as e:
        print(f"error: {e.render()}", file=sys.stderr)
        return 1
    first_of_kind: dict[str, int] = {}
    for it in items:
        first_of_kind.setdefault(it["kind"], it["id"])
    token = "screenshots"
    app = create_app(DeskConfig(db=db, bundles=[args.bundle], cache_dir=args.cache or default_cache_dir(),
                                admin_token=token))
    bundle = app.state.desk.bundles.add(args.bundle)
    shots: list[Path] = []

    def shot(page, name: str) -> None:
        path = out / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        shots.append(path)
        print(f"{path}  ({page.title()})")

    with ServerThread(app) as url, sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
        ctx = launch_chromium(p, profile, viewport={"width": args.width, "height": 900})
        page = ctx.new_page()
        # three reviewers work the first two items; two of them reject the second one
        for who, verdicts in (("ana", ["1", "1"]), ("ben", ["1", "2"]), ("chen", ["1", "2"])):
            ctx.clear_cookies()
            sign_in(page, url, who)
            for key in verdicts:
                review_current(page, key, realistic=key == "1")
        ctx.clear_cookies()
        sign_in(page, url, "screenshots")
        for kind, item_id in sorted(first_of_kind.items()):
            page.goto(f"{url}/review/{item_id}")
            if page.query_selector("#player"):
                page.wait_for_function("document.querySelector('#player').readyState >= 1", timeout=20000)
            page.wait_for_load_state("networkidle")
            shot(page, "review-" + kind.replace("/", "-"))
        page.goto(f"{url}/admin?token={token}")
        page.goto(f"{url}/dashboard")
        shot(page, "dashboard")
        page.goto(f"{url}/bundles/{bundle.key}")
        shot(page, "bundle")
        page.goto(f"{url}/bundles/{bundle.key}/facts")
        shot(page, "facts")
        for name in bundle.reports():
            page.goto(f"{url}/bundles/{bundle.key}/reports/{name}")
            shot(page, f"report-{name}")
        for kind in ("recordings/screen_recording", "visuals/web_screenshot"):
            entry = next((f for f in bundle.files.values() if f.get("kind") == kind), None)
            if entry:
                page.goto(f"{url}/bundles/{bundle.key}/view/{entry['path']}")
                page.wait_for_load_state("networkidle")
                shot(page, "file-" + kind.replace("/", "-"))
        ctx.close()
    print(f"{len(shots)} screenshots in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
