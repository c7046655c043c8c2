"""The bundle format: versioned, content-addressed, verified.

    OUT/bundles/<domain>/<version>/
        manifest.json          schema version, bundle version, domain, variant, seed, ...
        facts.json             the FactSet the bundle was built from
        plan.json              the evidence plan (carriers, distractors, superseded values)
        evidence/<family>/<kind>/<artifact><ext>
        reports/recoverability.json (and reports/leaks.json for variants)

`bundle_version` is "<semver>+<content hash prefix>", e.g. "0.1.0+airline.3fa2c1d9e0ab"; the
hash is taken over the manifest's content (every file's path and sha256, the facts hash, the
seed, ...), so the same inputs and seed give the same version. The bundle is assembled in a
temporary directory beside its destination and renamed into place; an existing bundle with
the same version is identical by construction and is kept.

This module imports nothing from Dagster or the media stack (the evaluator reads bundles).
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Optional

from pydantic import BaseModel, ConfigDict, Field

from facts.errors import FactforgeError
from facts.hashing import content_hash, file_sha256

BUNDLE_SCHEMA_VERSION = "1.0"
SEMVER = "0.1.0"


class FileEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str
    sha256: str
    size: int
    family: Optional[str] = None
    kind: Optional[str] = None
    artifact_id: Optional[str] = None
    fact_ids: list[str] = Field(default_factory=list)


class Manifest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    schema_version: str = BUNDLE_SCHEMA_VERSION
    bundle_version: str = ""
    content_hash: str = ""
    domain: str
    variant: Optional[str] = None
    base_domain: Optional[str] = None
    variant_spec_hash: Optional[str] = None
    seed: int
    generator_version: str
    facts_hash: str
    plan_hash: str
    files: list[FileEntry]
    fact_index: dict[str, list[str]]

    def compute_hash(self) -> str:
        return content_hash(self.model_dump(mode="json", exclude={"bundle_version", "content_hash"}))


def _json_bytes(obj) -> bytes:
    return (json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def write_bundle(out_root: Path, *, domain: str, seed: int, generator_version: str, facts_json: dict,
                 plan_json: dict, artifacts: list[dict], reports: dict[str, dict],
                 variant: Optional[str] = None, base_domain: Optional[str] = None,
                 variant_spec_hash: Optional[str] = None) -> tuple[Path, Manifest]:
    """artifacts: dicts with path (bundle-relative), file (source path), family, kind,
    artifact_id, fact_ids. reports: bundle-relative path -> JSON object."""
    out_root = Path(out_root)
    parent = out_root / "bundles" / domain
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-bundle-", dir=parent))
    try:
        entries: list[FileEntry] = []

        def add_bytes(rel: str, data: bytes, **meta) -> None:
            p = tmp / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
            entries.append(FileEntry(path=rel, sha256=content_hash_bytes(data), size=len(data), **meta))

        add_bytes("facts.json", _json_bytes(facts_json))
        add_bytes("plan.json", _json_bytes(plan_json))
        for rel, rep in sorted(reports.items()):
            add_bytes(rel, _json_bytes(rep), family="reports")
        for a in sorted(artifacts, key=lambda a: a["path"]):
            dest = tmp / a["path"]
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(a["file"], dest)
            entries.append(FileEntry(path=a["path"], sha256=file_sha256(dest), size=dest.stat().st_size,
                                     family=a["family"], kind=a["kind"], artifact_id=a["artifact_id"],
                                     fact_ids=sorted(a["fact_ids"])))
        entries.sort(key=lambda e: e.path)
        index: dict[str, list[str]] = {}
        for e in entries:
            for fid in e.fact_ids:
                index.setdefault(fid, []).append(e.path)
        man = Manifest(domain=domain, variant=variant, base_domain=base_domain,
                       variant_spec_hash=variant_spec_hash, seed=seed, generator_version=generator_version,
                       facts_hash=facts_json.get("hash", ""), plan_hash=plan_json.get("hash", ""),
                       files=entries, fact_index=dict(sorted(index.items())))
        h = man.compute_hash()
        man.content_hash = h
        label = f"{variant}." if variant else ""
        man.bundle_version = f"{SEMVER}+{label}{h[:12]}"
        (tmp / "manifest.json").write_bytes(_json_bytes(man.model_dump(mode="json")))
        final = parent / man.bundle_version
        if final.exists():
            shutil.rmtree(tmp)
        else:
            os.replace(tmp, final)
        return final, man
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def content_hash_bytes(data: bytes) -> str:
    import hashlib  # noqa: PLC0415
    return hashlib.sha256(data).hexdigest()


def load_manifest(bundle_dir: Path) -> Manifest:
    p = Path(bundle_dir) / "manifest.json"
    if not p.exists():
        raise FactforgeError("not a bundle: manifest.json is missing", bundle_dir)
    try:
        return Manifest.model_validate_json(p.read_text(encoding="utf-8"))
    except Exception as e:  # noqa: BLE001
        raise FactforgeError(f"invalid manifest: {str(e).splitlines()[0]}", p) from None


def verify_bundle(bundle_dir: Path) -> list[str]:
    """Problems found (empty list: the bundle is intact). Recomputes every hash; reports
    changed, missing and extra files, and a manifest whose content hash does not match."""
    bundle_dir = Path(bundle_dir)
    man = load_manifest(bundle_dir)
    problems = []
    listed = {e.path for e in man.files}
    for e in man.files:
        p = bundle_dir / e.path
        if not p.is_file():
            problems.append(f"missing: {e.path}")
            continue
        if p.stat().st_size != e.size or file_sha256(p) != e.sha256:
            problems.append(f"changed: {e.path} (sha256 differs from manifest)")
    for p in sorted(bundle_dir.rglob("*")):
        if p.is_file():
            rel = p.relative_to(bundle_dir).as_posix()
            if rel != "manifest.json" and rel not in listed:
                problems.append(f"extra: {rel} (not in manifest)")
    if man.compute_hash() != man.content_hash:
        problems.append("changed: manifest.json (content hash does not match its entries)")
    return problems
