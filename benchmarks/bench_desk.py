"""Review desk figures: concurrent reviewer sessions over HTTP, page times per viewer, the
dashboard over a large queue.

    python benchmarks/bench_desk.py [--bundle DIR --cache DIR] [--sessions 20] [--copies 100]

Without --bundle it builds `_mock` (full profile, all 17 kinds) into a temporary workspace.
Prints:
- the concurrent run: sessions, items, reviews recorded, lost, doubled, wall seconds,
  reviews per second, p50/p95 milliseconds of "lease next item + load its page" and of
  "submit review";
- per viewer kind: the review page's milliseconds (cold = first view, which renders PDF pages
  with pdftoppm; warm = median of 5 later views);
- the dashboard's milliseconds over `copies` copies of the bundle's items (queued under
  distinct domain names, three reviews each through the queue API).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from audits.desk.app import DeskConfig, create_app  # noqa: E402
from audits.desk.server import ServerThread  # noqa: E402
from audits.queue import VERDICTS, AuditQueue, normalise_reviewer  # noqa: E402


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else float("nan")


def build_mock(tmp: Path) -> tuple[Path, Path]:
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "build", "--domain", "_mock", "--out", str(tmp / "out"),
                        "--workspace", str(tmp / "ws")], capture_output=True, text=True, cwd=ROOT)
    if r.returncode != 0:
        sys.exit(r.stderr)
    (bundle,) = (tmp / "out" / "bundles" / "_mock").iterdir()
    print(f"built _mock (full profile) in {time.perf_counter() - t0:.1f} s")
    return bundle, tmp / "ws" / "cache"


def signin(url: str, name: str) -> httpx.Client:
    c = httpx.Client(base_url=url, timeout=120, headers={"Origin": url})   # as a browser's form POST
    c.post("/signin", data={"name": name, "next": "/"})
    return c


def concurrent(bundle: Path, cache: Path, tmp: Path, sessions: int) -> None:
    db = tmp / "concurrent.sqlite"
    with AuditQueue(db) as q:
        n = len(q.enqueue(bundle).added)
    app = create_app(DeskConfig(db=db, cache_dir=cache, admin_token="bench"))
    lease_ms: list[float] = []
    submit_ms: list[float] = []
    told: Counter = Counter()
    errors: list[str] = []
    lock = threading.Lock()

    def work(name: str, url: str, barrier: threading.Barrier) -> None:
        rng = random.Random(name)
        c = signin(url, name)
        barrier.wait()
        while True:
            t0 = time.perf_counter()
            r = c.get("/review/next")
            if r.status_code != 303:
                return
            loc = r.headers["location"]
            page = c.get(loc)
            t1 = time.perf_counter()
            item = int(loc.split("/")[2].split("?")[0])
            facts = [f for f in page.text.split('name="verdict:')[1:]]
            facts = sorted({f.split('"')[0] for f in facts})
            data = {f"verdict:{f}": rng.choice(VERDICTS) for f in facts}
            data.update(realistic="yes" if rng.random() < 0.8 else "no", comment="bench")
            r = c.post(f"/review/{item}", data=data)
            t2 = time.perf_counter()
            with lock:
                lease_ms.append(1000 * (t1 - t0))
                submit_ms.append(1000 * (t2 - t1))
                if r.status_code == 303:
                    told[(item, normalise_reviewer(name))] += 1
                else:
                    errors.append(f"{name} {item} {r.status_code}")
                    return

    with ServerThread(app) as url:
        barrier = threading.Barrier(sessions + 1)
        threads = [threading.Thread(target=work, args=(f"bench-{i:02d}", url, barrier)) for i in range(sessions)]
        for t in threads:
            t.start()
        barrier.wait()
        t0 = time.perf_counter()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
    with AuditQueue(db) as q:
        stored = Counter((i["id"], r["reviewer"]) for i in q.export() for r in i["reviews"])
    lost = sum((told - stored).values())
    doubled = sum(v - 1 for v in stored.values() if v > 1)
    print(f"\n{sessions} concurrent sessions over HTTP: {n} items, {sum(stored.values())} reviews stored "
          f"({sum(told.values())} acknowledged), lost {lost}, doubled {doubled}, errors {len(errors)}")
    print(f"  wall {wall:.2f} s, {sum(stored.values()) / wall:.1f} reviews/s")
    print(f"  lease next + load page: p50 {pct(lease_ms, 50):.0f} ms, p95 {pct(lease_ms, 95):.0f} ms")
    print(f"  submit review:          p50 {pct(submit_ms, 50):.0f} ms, p95 {pct(submit_ms, 95):.0f} ms")


def pages(bundle: Path, cache: Path, tmp: Path) -> None:
    db = tmp / "pages.sqlite"
    fresh_cache = tmp / "page-cache"
    shutil.copytree(cache, fresh_cache)  # the extraction cache, without rendered PDF pages
    shutil.rmtree(fresh_cache / "desk", ignore_errors=True)
    with AuditQueue(db) as q:
        q.enqueue(bundle)
        items = q.export()
    app = create_app(DeskConfig(db=db, cache_dir=fresh_cache, admin_token="bench"))
    first: dict[str, int] = {}
    for it in items:
        first.setdefault(it["kind"], it["id"])
    print("\nreview page by kind (ms): cold (first view), warm (median of 5)")
    with ServerThread(app) as url:
        c = signin(url, "pages")
        for kind, item in sorted(first.items()):
            t0 = time.perf_counter()
            c.get(f"/review/{item}")
            cold = 1000 * (time.perf_counter() - t0)
            warm = []
            for _ in range(5):
                t0 = time.perf_counter()
                c.get(f"/review/{item}")
                warm.append(1000 * (time.perf_counter() - t0))
            print(f"  {kind:34s} cold {cold:7.1f}  warm {statistics.median(warm):6.1f}")


def dashboard(bundle: Path, cache: Path, tmp: Path, copies: int) -> None:
    db = tmp / "dashboard.sqlite"
    t0 = time.perf_counter()
    with AuditQueue(db) as q:
        for i in range(copies):
            copy = tmp / "copies" / f"c{i}"
            shutil.copytree(bundle, copy, copy_function=os.link)  # hard links: no 100 x 3.5 MB
            man = json.loads((copy / "manifest.json").read_text())
            man["domain"], man["bundle_version"] = f"bench{i:03d}", f"{man['bundle_version']}-c{i}"
            (copy / "manifest.json").unlink()  # break the link before writing
            (copy / "manifest.json").write_text(json.dumps(man))
            q.enqueue(copy)
        rng = random.Random(0)
        for name in ("r1", "r2", "r3"):
            while (item := q.next_item(name)) is not None:
                q.submit(item.id, name, {f.id: rng.choice(VERDICTS[:2] if rng.random() < .9 else VERDICTS)
                                         for f in item.facts}, rng.random() < .85)
        n, reviews = q.status()["items"], q.status()["reviews"]
    setup = time.perf_counter() - t0
    app = create_app(DeskConfig(db=db, cache_dir=cache, admin_token="bench"))
    with ServerThread(app) as url:
        c = signin(url, "dash")
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            r = c.get("/dashboard")
            times.append(1000 * (time.perf_counter() - t0))
        assert r.status_code == 200
    print(f"\ndashboard over {n} items / {reviews} reviews ({copies} bundle copies, setup {setup:.1f} s): "
          f"median {statistics.median(times):.0f} ms, max {max(times):.0f} ms")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bundle", type=Path)
    ap.add_argument("--cache", type=Path)
    ap.add_argument("--sessions", type=int, default=20)
    ap.add_argument("--copies", type=int, default=100)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-desk-") as t:
        tmp = Path(t)
        bundle, cache = (args.bundle, args.cache) if args.bundle else build_mock(tmp)
        concurrent(bundle, cache, tmp, args.sessions)
        pages(bundle, cache, tmp)
        dashboard(bundle, cache, tmp, args.copies)


if __name__ == "__main__":
    main()
