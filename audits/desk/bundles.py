"""Read-only access to bundles for the desk and the bundle browser.

A bundle is read as plain JSON (manifest, facts, plan, every `reports/*.json`), not through the
strict models of the code that wrote it: the browser shows whatever a bundle holds, so fields
and plan roles added by a newer build appear without a change here.

The fact index is derived from `plan.json` generically: every list inside an artifact spec
whose entries carry a `fact_id` is a *role*; an entry's own `role` field names it when present
(`distractor`, `superseded`, ...), otherwise the list's name does (`facts` -> `carrier`). A new
role written by the planner (echo, partial, contested, ...) shows up as a new column.
"""
from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable, Optional

from facts.errors import FactforgeError

# The list of authoritative mentions in an artifact spec is called "facts"; as a role it reads
# better as "carrier".
LIST_ROLE_NAMES = {"facts": "carrier"}


def find_bundle_root(path: str | Path) -> Optional[Path]:
    """The nearest ancestor of `path` (or `path` itself) holding a manifest.json."""
    p = Path(path).resolve()
    for d in [p, *p.parents]:
        if (d / "manifest.json").is_file():
            return d
    return None


def discover_bundles(paths: Iterable[str | Path], max_depth: int = 4) -> list[Path]:
    """Bundle directories named by `paths`: a bundle itself, or any folder holding bundles up
    to `max_depth` levels down (e.g. `OUT/`, `OUT/bundles/airline/`). Raises on a path that
    does not exist or holds no bundle."""
    found: list[Path] = []
    for raw in paths:
        p = Path(raw).resolve()
        if not p.exists():
            raise FactforgeError("no such bundle or folder", p)
        if (p / "manifest.json").is_file():
            found.append(p)
            continue
        here = sorted(m.parent for depth in range(1, max_depth + 1)
                      for m in p.glob("/".join(["*"] * depth) + "/manifest.json")
                      if not any(part.startswith(".") for part in m.parent.relative_to(p).parts))
        if not here:
            raise FactforgeError("no bundle (manifest.json) found here", p)
        found += here
    return sorted(dict.fromkeys(found))


def _load(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except json.JSONDecodeError as e:
        raise FactforgeError(f"invalid JSON: {e.msg}", path, e.lineno) from None


@dataclass
class FactRow:
    """One fact of the index: its statement and, per role, the files that hold it."""

    id: str
    statement: str
    section: str
    kind: str
    values: list[str]
    roles: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # role -> entries (path, details)


class Bundle:
    """One bundle directory, read lazily. `key` is the name the desk's URLs use."""

    def __init__(self, root: str | Path, key: Optional[str] = None):
        self.root = Path(root).resolve()
        if not (self.root / "manifest.json").is_file():
            raise FactforgeError("not a bundle (no manifest.json)", self.root)
        self.key = key or self.root.name

    @cached_property
    def manifest(self) -> dict[str, Any]:
        data = _load(self.root / "manifest.json")
        if not isinstance(data, dict) or not isinstance(data.get("files"), list):
            raise FactforgeError("manifest.json has no file list", self.root / "manifest.json")
        return data

    @cached_property
    def facts(self) -> dict[str, dict[str, Any]]:
        data = _load(self.root / "facts.json") or {}
        return {f["id"]: f for f in data.get("facts", []) if isinstance(f, dict) and "id" in f}

    @cached_property
    def plan(self) -> dict[str, Any]:
        return _load(self.root / "plan.json") or {}

    @property
    def title(self) -> str:
        m = self.manifest
        return f"{m.get('domain', '?')}{'@' + m['variant'] if m.get('variant') else ''} {m.get('bundle_version', '')}"

    @cached_property
    def files(self) -> dict[str, dict[str, Any]]:
        """Manifest file entries by bundle-relative path."""
        return {f["path"]: f for f in self.manifest["files"] if isinstance(f, dict) and "path" in f}

    def file_entry(self, rel: str) -> dict[str, Any]:
        entry = self.files.get(rel)
        if entry is None:
            raise FactforgeError(f"no file '{rel}' in bundle {self.key}")
        return entry

    def path_of(self, rel: str) -> Path:
        """Absolute path of a file the manifest lists (never anything outside the bundle)."""
        self.file_entry(rel)
        target = (self.root / rel).resolve()
        if self.root not in target.parents:
            raise FactforgeError(f"file path '{rel}' points outside the bundle", self.root / "manifest.json")
        return target

    def by_artifact(self, artifact_id: str) -> Optional[dict[str, Any]]:
        return next((f for f in self.files.values() if f.get("artifact_id") == artifact_id), None)

    def families(self) -> dict[str, dict[str, list[dict[str, Any]]]]:
        """Evidence files grouped family -> kind -> entries (reports and bundle metadata apart)."""
        out: dict[str, dict[str, list[dict[str, Any]]]] = {}
        for f in self.files.values():
            if not f.get("artifact_id"):
                continue
            family = f.get("family") or "other"
            out.setdefault(family, {}).setdefault(f.get("kind") or "other", []).append(f)
        return {fam: dict(sorted(kinds.items())) for fam, kinds in sorted(out.items())}

    def reports(self) -> dict[str, Path]:
        """Report name (file stem) -> path, for every `reports/*.json`."""
        d = self.root / "reports"
        return {p.stem: p for p in sorted(d.glob("*.json"))} if d.is_dir() else {}

    def report(self, name: str) -> Any:
        path = self.reports().get(name)
        if path is None:
            raise FactforgeError(f"no report '{name}' in bundle {self.key}; reports: {', '.join(self.reports()) or 'none'}")
        return _load(path)

    def spec(self, artifact_id: str) -> Optional[dict[str, Any]]:
        return next((a for a in self.plan.get("artifacts", []) if isinstance(a, dict) and a.get("id") == artifact_id),
                    None)

    def plan_sections(self) -> dict[str, Any]:
        """Top-level plan entries other than the artifact list and the planner config (e.g.
        multi-hop routes a newer planner writes), shown generically."""
        skip = {"artifacts", "config", "schema_version", "hash", "domain", "variant", "seed", "facts_hash"}
        return {k: v for k, v in self.plan.items() if k not in skip}

    def fact_index(self) -> tuple[list[str], list[FactRow]]:
        """(roles in order of first appearance, carrier first; one row per fact). Each entry
        holds the file's `path`, `artifact_id`, `kind`, `date` and the entry's other fields."""
        rows: dict[str, FactRow] = {}
        for fid, f in self.facts.items():
            values = [s.get("text", "") for s in f.get("slots", []) if isinstance(s, dict) and s.get("text")]
            rows[fid] = FactRow(id=fid, statement=f.get("statement", ""), section=" > ".join(f.get("section", [])),
                                kind=str(f.get("kind", "")), values=values)
        roles: list[str] = ["carrier"]
        for spec in self.plan.get("artifacts", []):
            if not isinstance(spec, dict):
                continue
            for list_name, entries in spec.items():
                if not isinstance(entries, list):
                    continue
                for e in entries:
                    if not isinstance(e, dict) or "fact_id" not in e:
                        continue
                    role = str(e.get("role") or LIST_ROLE_NAMES.get(list_name, list_name))
                    if role not in roles:
                        roles.append(role)
                    row = rows.get(e["fact_id"])
                    if row is None:  # a fact the plan names but facts.json lacks: show it anyway
                        row = rows[e["fact_id"]] = FactRow(id=e["fact_id"], statement="(not in facts.json)",
                                                           section="", kind="", values=[])
                    details = {k: v for k, v in e.items() if k not in ("fact_id", "role") and v not in (None, "")}
                    row.roles.setdefault(role, []).append(
                        {"path": spec.get("path"), "artifact_id": spec.get("id"), "kind": spec.get("kind"),
                         "date": spec.get("date"), "details": details})
        for row in rows.values():
            for entries in row.roles.values():
                entries.sort(key=lambda e: (str(e.get("date") or ""), str(e.get("path") or "")))
        # carriers the manifest lists but the plan does not (e.g. a plan-less bundle)
        for fid, paths in (self.manifest.get("fact_index") or {}).items():
            row = rows.get(fid)
            if row is None:
                continue
            have = {e["path"] for e in row.roles.get("carrier", [])}
            for p in paths:
                if p not in have:
                    entry = self.files.get(p, {})
                    row.roles.setdefault("carrier", []).append(
                        {"path": p, "artifact_id": entry.get("artifact_id"), "kind": entry.get("kind"),
                         "date": None, "details": {}})
        return roles, sorted(rows.values(), key=lambda r: (r.section, r.id))


_SAFE_KEY = re.compile(r"[^A-Za-z0-9._+@-]")


class BundleSet:
    """The bundles a desk serves, by URL key (the bundle version, made unique and URL-safe)."""

    def __init__(self) -> None:
        self._by_key: dict[str, Bundle] = {}
        self._by_root: dict[Path, Bundle] = {}
        self._by_folder: dict[str, Optional[Path]] = {}
        self._lock = threading.Lock()

    def add(self, root: str | Path) -> Bundle:
        root = Path(root).resolve()
        with self._lock:
            if root in self._by_root:
                return self._by_root[root]
            probe = Bundle(root)
            m = probe.manifest
            base = _SAFE_KEY.sub("_", f"{m.get('domain', 'bundle')}-{m.get('bundle_version') or root.name}")
            key, n = base, 2
            while key in self._by_key:
                key, n = f"{base}-{n}", n + 1
            probe.key = key
            self._by_key[key] = self._by_root[root] = probe
            return probe

    def get(self, key: str) -> Bundle:
        if key not in self._by_key:
            raise FactforgeError(f"no bundle '{key}' is served here")
        return self._by_key[key]

    def for_file(self, path: str | Path) -> Optional[Bundle]:
        """The bundle holding an absolute file path (added on first sight)."""
        folder = str(Path(path).parent)
        if folder not in self._by_folder:
            self._by_folder[folder] = find_bundle_root(folder)
        root = self._by_folder[folder]
        return self.add(root) if root else None

    def __iter__(self):
        return iter(sorted(self._by_key.values(), key=lambda b: b.key))

    def __len__(self) -> int:
        return len(self._by_key)
