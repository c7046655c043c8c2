"""Helpers shared by the review desk tests: reviewer sessions over real HTTP and a small
hand-made bundle whose one transcript claims three facts (for keyboard navigation)."""
from __future__ import annotations

import html
import json
import re
from pathlib import Path

import httpx

from facts.hashing import sha256_hex
from facts.models import FactSet

VERDICT_INPUT = re.compile(r'name="verdict:([^"]+)" value="present"')


def browser_like(url: str, **kw) -> httpx.Client:
    """A client that names its origin on every request, as a browser does on a form POST."""
    return httpx.Client(base_url=url, timeout=60, headers={"Origin": url}, **kw)


def reviewer(url: str, name: str) -> httpx.Client:
    """A signed-in reviewer session (its own cookie jar). Follows no redirects by itself."""
    c = browser_like(url)
    r = c.post("/signin", data={"name": name, "next": "/"})
    assert r.status_code == 303, r.text
    return c


def next_item(c: httpx.Client) -> tuple[int | None, list[str], str]:
    """Lease the next item through the pages: (item id or None, claimed fact ids, page html)."""
    r = c.get("/review/next")
    if r.status_code == 200:
        assert 'id="queue-empty"' in r.text, r.text[:500]
        return None, [], r.text
    assert r.status_code == 303, r.text[:500]
    page = c.get(r.headers["location"])
    assert page.status_code == 200, page.text[:500]
    item_id = int(re.search(r"/review/(\d+)", r.headers["location"]).group(1))
    return item_id, [html.unescape(f) for f in VERDICT_INPUT.findall(page.text)], page.text


def submit(c: httpx.Client, item_id: int, verdicts: dict[str, str], realistic: bool, comment: str = "",
           notes: dict[str, str] | None = None) -> httpx.Response:
    data = {f"verdict:{fid}": v for fid, v in verdicts.items()}
    data.update({f"note:{fid}": n for fid, n in (notes or {}).items()})
    data.update({"realistic": "yes" if realistic else "no", "comment": comment})
    return c.post(f"/review/{item_id}", data=data)


def admin(url: str, token: str) -> httpx.Client:
    c = browser_like(url)
    r = c.get(f"/admin?token={token}")
    assert r.status_code == 303, r.text
    return c


def three_fact_bundle(root: Path, facts) -> Path:
    """A bundle (manifest, facts.json, one chat transcript) whose transcript claims three facts."""
    bdir = root / "threefacts"
    rel = "evidence/conversations/chat_transcript/chat-0001.txt"
    (bdir / rel).parent.mkdir(parents=True)
    text = "\n".join(["Support chat", "", *(f"[10:0{i}:00] Agent: {f.statement}" for i, f in enumerate(facts[:3]))])
    (bdir / rel).write_text(text, encoding="utf-8")
    files = [{"path": rel, "sha256": sha256_hex(text), "size": len(text.encode()), "family": "conversations",
              "kind": "conversations/chat_transcript", "artifact_id": "chat-0001",
              "fact_ids": [f.id for f in facts[:3]]}]
    manifest = {"schema_version": "1.0", "bundle_version": "0.1.0+threefacts", "domain": "_mock", "variant": None,
                "seed": 1, "facts_hash": "x", "files": files,
                "fact_index": {f.id: [rel] for f in facts[:3]}}
    (bdir / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    fs = FactSet(domain="_mock", source_file="policy.md", facts=list(facts))
    (bdir / "facts.json").write_text(json.dumps(fs.model_dump(mode="json"), indent=2), encoding="utf-8")
    return bdir
