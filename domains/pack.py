"""A domain pack on disk, and where packs are found (`scan`, `discover`, `get_pack`).

A pack is a folder holding:

- `domain.toml`: `[domain]` name, business kind, world clock (`now`), currency, locale,
  timezone; `[brand]` company name, email domain, voice, staff names, product names,
  identifier prefixes;
- `policy.md` (or `policy/*.md`): the policy, decomposed into atomic facts;
- `domain.py` declaring `DOMAIN`, the pack's code (`domains.contract.PackCode`): `rules.py`
  (values and the policy's functions), `seed.py` (the seed database), `check.py`,
  `model.py` (the typed database), `api.py` and `scenarios.py`; or `db.json`, a database
  as is (imported tau2 packs);
- optionally `variants/<name>.toml|yaml` (rebrands, `domains.variant_spec`), `tasks/*.toml`
  (task specs, `outputs.packs.spec`), `deployments/*.toml` (serving budgets and defects,
  `outputs.api.deployment`) and `tasks.json` (imported tasks).

Packs are discovered from the built-in folder (`domains/`), from every folder in the
`FACTFORGE_DOMAINS_DIR` environment variable (os.pathsep-separated) and from `--domains-dir`.
A folder whose name starts with `_` is a test domain (listed only when asked). Adding a
domain touches nothing here.
"""
from __future__ import annotations

import datetime as dt
import os
import tomllib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from pydantic import Field, ValidationError

from facts.errors import FactforgeError
from facts.hashing import content_hash
from facts.names import check_name
from facts.strict import StrictModel

from . import readers, sandbox
from .contract import DomainCode, load_code
from .decompose import decompose_pack

if TYPE_CHECKING:
    from .apikit import DomainApi

BUILTIN_DIR = Path(__file__).resolve().parent
ENV_VAR = "FACTFORGE_DOMAINS_DIR"


class DomainInfo(StrictModel):
    name: str
    business: str
    now: dt.datetime
    currency: str = "USD"
    locale: str = "en_US"
    timezone: str = "UTC"
    description: str = ""


class Brand(StrictModel):
    company: str
    short_name: str = ""
    email_domain: str
    website: str = ""
    voice: str = "friendly"  # friendly | formal | terse
    tagline: str = ""
    agents: list[str] = Field(default_factory=list)      # support staff names
    managers: list[str] = Field(default_factory=list)    # policy owners, approvers
    customers: list[str] = Field(default_factory=list)   # customer names used in records
    products: dict[str, str] = Field(default_factory=dict)  # generic term -> brand name
    id_prefixes: dict[str, str] = Field(default_factory=dict)  # e.g. reservation -> "SKY"
    phone: str = ""


class PackFile(StrictModel):
    domain: DomainInfo
    brand: Brand


class DomainPack:
    """A loaded domain pack. Cheap to construct; facts and database are computed lazily."""

    def __init__(self, path: Path, spec: PackFile):
        self.path = path
        self.spec = spec

    @property
    def name(self) -> str:
        return self.spec.domain.name

    @property
    def brand(self) -> Brand:
        return self.spec.brand

    @property
    def info(self) -> DomainInfo:
        return self.spec.domain

    @property
    def is_test(self) -> bool:
        return self.path.name.startswith("_")

    @property
    def policy_path(self) -> Path:
        return self.path / "policy.md"

    def policy_files(self) -> list[Path]:
        """policy.md, or every markdown file under policy/ (sorted) for large domains."""
        if self.policy_path.exists():
            return [self.policy_path]
        d = self.path / "policy"
        files = sorted(d.glob("**/*.md")) if d.is_dir() else []
        if not files:
            raise FactforgeError("domain pack has no policy.md (nor policy/*.md)", self.path)
        return files

    def factset(self, decomposer: str = "builtin"):
        return decompose_pack(self, decomposer=decomposer)

    @cached_property
    def facts(self):
        return self.factset()

    @property
    def code(self) -> "DomainCode":
        """What the pack's Python provides (`domains.contract`): `DOMAIN` in domain.py, else a
        db.json database, else an empty one."""
        return load_code(self.path)

    def database(self, seed: int = 0) -> dict[str, Any]:
        return sandbox.run(self.path, "generate", self, seed)

    def check_database(self, db: dict[str, Any]) -> list[str]:
        """The domain's own consistency checks (empty when the database obeys the policy)."""
        return list(sandbox.run(self.path, "check", self, db))

    def api(self, values: Optional[dict[str, Any]] = None) -> Optional["DomainApi"]:
        """The domain API bound to this pack (None for a pack without one)."""
        return self.code.api(self, values)

    def pack_hash(self) -> str:
        """Hash over every source file of the pack (for caching and manifests)."""
        parts = {}
        for p in sorted(self.path.rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts and not p.name.endswith(".pyc"):
                parts[str(p.relative_to(self.path))] = content_hash(p.read_bytes().hex())
        return content_hash(parts)

    def variants_dir(self) -> Path:
        """Rebrands of this pack (`<name>.toml|yaml`, `domains.variant_spec`)."""
        return self.path / "variants"

    def tasks_dir(self) -> Path:
        """Task specs (`<id>.toml`, `outputs.packs.spec`)."""
        return self.path / "tasks"

    def deployments_dir(self) -> Path:
        """Deployments of the pack's API (`<id>.toml`: budgets and defects, `outputs.api.deployment`)."""
        return self.path / "deployments"

    def task_ids(self) -> list[str]:
        d = self.tasks_dir()
        return sorted(p.stem for p in d.glob("*.toml")) if d.is_dir() else []

    def deployment_ids(self) -> list[str]:
        d = self.deployments_dir()
        return sorted(p.stem for p in d.glob("*.toml")) if d.is_dir() else []

    def __repr__(self) -> str:
        return f"DomainPack({self.name!r}, {self.path})"

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "spec": self.spec}  # what crosses to the seed sandbox (no caches)


def _toml_line_of(text: str, loc: tuple) -> Optional[int]:
    """Best-effort line number of a key path in a TOML text (for error messages)."""
    section, key = None, None
    if len(loc) >= 2:
        section, key = str(loc[0]), str(loc[1])
    elif loc:
        section = str(loc[0])
    cur = None
    for i, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if s.startswith("[") and s.endswith("]"):
            cur = s.strip("[]").strip()
            if key is None and cur == section:
                return i
            continue
        if cur == section and key and s.split("=", 1)[0].strip() == key:
            return i
    for i, line in enumerate(text.splitlines(), 1):
        if line.strip() == f"[{section}]":
            return i
    return None


def load_pack(path: str | Path) -> DomainPack:
    path = Path(path)
    toml_path = path / "domain.toml"
    if not toml_path.is_file():
        raise FactforgeError("not a domain pack: domain.toml is missing", path)
    text, data = readers.load_toml(toml_path)
    try:
        spec = PackFile.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        loc = tuple(err["loc"])
        raise FactforgeError(f"{'.'.join(map(str, loc))}: {err['msg']}", toml_path,
                             _toml_line_of(text, loc)) from None
    check_name(spec.domain.name, file=toml_path, line=_toml_line_of(text, ("domain", "name")))
    return DomainPack(path, spec)


def search_dirs(extra: list[str | Path] | None = None) -> list[Path]:
    dirs = [Path(d) for d in (extra or [])]
    env = os.environ.get(ENV_VAR, "")
    dirs += [Path(d) for d in env.split(os.pathsep) if d]
    dirs.append(BUILTIN_DIR)
    return dirs


@dataclass(frozen=True)
class BrokenPack:
    """A folder with a domain.toml that does not load: listed, never built, and it blocks
    only builds that ask for it (by its folder name or the name its domain.toml gives)."""

    path: Path
    error: FactforgeError
    names: tuple[str, ...]


def _names_of(sub: Path) -> tuple[str, ...]:
    names = [sub.name]
    try:
        raw = tomllib.loads((sub / "domain.toml").read_text(encoding="utf-8"))["domain"]["name"]
        if isinstance(raw, str):
            names.append(raw)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, KeyError, TypeError):
        pass
    return tuple(dict.fromkeys(names))


def scan(extra_dirs: list[str | Path] | None = None,
         include_test: bool = False) -> tuple[dict[str, DomainPack], list[BrokenPack]]:
    """Every pack found, by name, and the folders that failed to load. Earlier directories
    win (a user's pack can shadow a built-in one of the same name). Hidden folders (a
    scaffold's temporary copy) are skipped."""
    found: dict[str, DomainPack] = {}
    broken: list[BrokenPack] = []
    for d in search_dirs(extra_dirs):
        if not d.is_dir():
            raise FactforgeError("domains directory does not exist", d)
        for sub in sorted(p for p in d.iterdir() if p.is_dir() and not p.name.startswith(".")):
            if not (sub / "domain.toml").exists():
                continue
            if sub.name.startswith("_") and not include_test:
                continue
            try:
                pack = load_pack(sub)
            except FactforgeError as e:
                broken.append(BrokenPack(sub, e, _names_of(sub)))
                continue
            found.setdefault(pack.name, pack)
    return found, broken


def discover(extra_dirs: list[str | Path] | None = None, include_test: bool = False) -> dict[str, DomainPack]:
    """Every pack that loads, by name (see `scan`; broken packs are left out)."""
    return scan(extra_dirs, include_test)[0]


def get_pack(name: str, extra_dirs: list[str | Path] | None = None) -> DomainPack:
    packs, broken = scan(extra_dirs, include_test=True)
    for b in broken:
        if name in b.names:
            raise b.error
    if name not in packs:
        avail = ", ".join(sorted(packs)) or "none"
        raise FactforgeError(f"unknown domain {name!r}; available: {avail}")
    return packs[name]
