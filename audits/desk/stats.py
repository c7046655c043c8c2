"""The dashboard's figures, computed from the queue's export (the same data `factforge audit
export` writes), so the page and the CLI can never disagree.

- progress per domain (domain@variant) and per kind: live items, open, complete, accepted,
  rejected, superseded, reviews done of the reviews needed (three per live item), and Fleiss'
  kappa over the complete items of that group (facts and realistic);
- per reviewer: reviews, live leases, and agreement with the final consensus (share of their
  fact verdicts equal to the majority verdict, and of their realistic votes);
- consensus of the most recently completed items;
- rejected artifacts and whether a rebuild has replaced them: re-queued (a newer item of the
  same artifact exists, with its state), rebuilt but not queued yet (a newer bundle beside
  the rejected one carries a different file for the artifact), or still waiting for a build.
"""
from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path
from typing import Any, Optional

from audits.queue import REVIEWS_PER_ITEM, AuditQueue, kappa_of

from .bundles import find_bundle_root


def group_key(item: dict[str, Any]) -> str:
    return item["domain"] + (f"@{item['variant']}" if item.get("variant") else "")


def _progress(items: list[dict[str, Any]]) -> dict[str, Any]:
    live = [i for i in items if i["status"] != "superseded"]
    complete = [i for i in live if i["status"] == "complete"]
    done = sum(min(len(i["reviews"]), REVIEWS_PER_ITEM) for i in live)
    needed = REVIEWS_PER_ITEM * len(live)
    return {"live": len(live), "open": sum(1 for i in live if i["status"] == "open"),
            "complete": len(complete), "accepted": sum(1 for i in complete if i["accepted"]),
            "rejected": sum(1 for i in complete if not i["accepted"]),
            "superseded": len(items) - len(live), "reviews": done, "needed": needed,
            "percent": round(100.0 * done / needed, 1) if needed else 0.0,
            "kappa": kappa_of(i["consensus"] for i in complete)}


def _manifest_files(root: Path, cache: dict[Path, tuple[float, dict[str, str]]]) -> dict[str, str]:
    """artifact id -> sha256 of one bundle's manifest (memoised by mtime)."""
    mpath = root / "manifest.json"
    try:
        mtime = mpath.stat().st_mtime
    except OSError:
        return {}
    hit = cache.get(root)
    if hit and hit[0] == mtime:
        return hit[1]
    try:
        files = {f["artifact_id"]: f["sha256"] for f in json.loads(mpath.read_text(encoding="utf-8"))["files"]
                 if f.get("artifact_id")}
    except (OSError, ValueError, KeyError, TypeError):
        files = {}
    cache[root] = (mtime, files)
    return files


def _rebuilt_on_disk(item: dict[str, Any], roots: dict[str, list[Path]],
                    folders: dict[Path, tuple[dict[str, float], dict[str, list[tuple[float, str, str]]]]],
                    cache: dict) -> Optional[dict[str, str]]:
    """The newest bundle beside the rejected item's bundle, written after it, whose file for
    the same artifact differs (the next build regenerated it). Each folder of bundles is read
    once per dashboard into an index artifact -> [(mtime, bundle, sha256)], newest first; each
    bundle's root is found once (`roots`, by bundle version)."""
    known = roots.setdefault(item["bundle_version"], [])
    root = next((r for r in known if item["path"].startswith(f"{r}{os.sep}")), None)
    if root is None:
        root = find_bundle_root(Path(item["path"]).parent)
        if root is None:
            return None
        known.append(root)
    if root.parent not in folders:
        mtimes: dict[str, float] = {}
        index: dict[str, list[tuple[float, str, str]]] = defaultdict(list)
        for other in root.parent.iterdir():
            mpath = other / "manifest.json"
            if other.name.startswith(".") or not mpath.is_file():
                continue
            mtimes[str(other)] = mtime = mpath.stat().st_mtime
            for artifact, sha in _manifest_files(other, cache).items():
                index[artifact].append((mtime, str(other), sha))
        for entries in index.values():
            entries.sort(reverse=True)
        folders[root.parent] = (mtimes, index)
    mtimes, index = folders[root.parent]
    here = str(root)
    mine = mtimes.get(here)
    for mtime, other, sha in index.get(item["artifact_id"], []):
        if mine is None or mtime < mine:
            break
        if other != here and sha != item["sha256"]:
            return {"bundle": Path(other).name, "path": other}
    return None


class Dashboard:
    """Builds the dashboard data; keeps a small memo of manifests it read."""

    def __init__(self) -> None:
        self._manifests: dict[Path, tuple[float, dict[str, str]]] = {}

    def compute(self, q: AuditQueue, recent: int = 50, max_rejected: int = 300) -> dict[str, Any]:
        items = q.export()
        leases = q.leases()
        by_domain: dict[str, list] = defaultdict(list)
        by_kind: dict[str, list] = defaultdict(list)
        for i in items:
            by_domain[group_key(i)].append(i)
            by_kind[i["kind"]].append(i)

        reviewers: dict[str, dict[str, Any]] = defaultdict(lambda: {"reviews": 0, "leases": 0, "fact_agree": 0,
                                                                    "fact_total": 0, "real_agree": 0,
                                                                    "real_total": 0, "domains": defaultdict(int)})
        for i in items:
            cons = i["consensus"]
            for r in i["reviews"]:
                st = reviewers[r["reviewer"]]
                st["reviews"] += 1
                st["domains"][group_key(i)] += 1
                if cons is None:
                    continue
                for fid, verdict in r["verdicts"].items():
                    final = cons["facts"].get(fid, {}).get("verdict")
                    if final is not None:
                        st["fact_total"] += 1
                        st["fact_agree"] += verdict == final
                st["real_total"] += 1
                st["real_agree"] += r["realistic"] == cons["realistic"]["majority"]
        for lease in leases:
            reviewers[lease["reviewer"]]["leases"] += 1
        reviewer_rows = []
        for name, st in sorted(reviewers.items()):
            reviewer_rows.append({
                "name": name, "reviews": st["reviews"], "leases": st["leases"],
                "domains": dict(sorted(st["domains"].items())),
                "fact_agreement": st["fact_agree"] / st["fact_total"] if st["fact_total"] else None,
                "realistic_agreement": st["real_agree"] / st["real_total"] if st["real_total"] else None})

        complete = sorted((i for i in items if i["status"] == "complete"), key=lambda i: i["id"], reverse=True)
        later: dict[tuple, list[dict]] = defaultdict(list)
        for i in items:
            later[(i["domain"], i.get("variant"), i["artifact_id"])].append(i)
        rejected = []
        roots: dict[str, list[Path]] = {}
        folders: dict[Path, tuple] = {}
        for i in complete:
            if i["accepted"]:
                continue
            newer = [j for j in later[(i["domain"], i.get("variant"), i["artifact_id"])] if j["id"] > i["id"]]
            if newer:
                j = min(newer, key=lambda x: x["id"])
                state = {"state": "requeued", "item": j["id"], "round": j["round"], "status": j["status"],
                         "accepted": j["accepted"]}
            else:
                disk = _rebuilt_on_disk(i, roots, folders, self._manifests)
                state = {"state": "rebuilt", **disk} if disk else {"state": "waiting"}
            rejected.append({"item": i, "replacement": state})
        # not yet replaced first (what needs a build or an enqueue), newest first within
        rejected.sort(key=lambda r: (r["replacement"]["state"] == "requeued", -r["item"]["id"]))
        return {
            "status": q.status(),
            "domains": {k: _progress(v) for k, v in sorted(by_domain.items())},
            "kinds": {k: _progress(v) for k, v in sorted(by_kind.items())},
            "reviewers": reviewer_rows,
            "recent": complete[:recent],
            "rejected": rejected[:max_rejected],
            "rejected_total": len(rejected),
            "leases": leases,
        }
