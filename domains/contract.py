"""The contract between factforge and a domain pack's Python code.

What a pack's code provides is one object, `DOMAIN`, defined in the pack's `seed.py`: an
instance of a subclass of `DomainCode`. It carries

- `values` / `value_facts`: the policy values the seed database depends on (a variant may
  override them) and, for each, a substring of the policy stating it;
- `generate(pack, seed, values, price_scale)`: the seed database (deterministic);
- `check(pack, db, values)`: every way a database breaks the policy (empty when it obeys);
- `api(pack, values)`: the domain API (`domains.apikit.DomainApi`), or None;
- `scenarios(ctx)`: the held-out simulations' drafts (`domains.simtests.Scenario`), turned
  into sealed tests by `domains.simtests.build_suite`.

Only `generate` is required. A pack without an API (imported tau2 packs, a fresh scaffold)
keeps the defaults: `api` returns None and `scenarios` returns no tests; everything else
(facts, evidence, bundles) works as before.

Loading: the pack folder is imported as a package of its own (a name derived from its
path), so `seed.py` may import its sibling modules relatively (`from .api import CATALOG`)
whether the pack is built in or lives in a `--domains-dir`. A pack with a `db.json` and no
`seed.py` gets `StaticDatabase` (the file is its database); a pack with neither gets an
empty database. There is no probing for optional functions: a `seed.py` without a
`DOMAIN` of the right type is an error naming the file.

The code is loaded here only after it has loaded in the pack's sandbox worker, and the
database calls (`generate`, `check`) run there (`domains.sandbox`: time limit, one-line
errors naming the pack file and line).
"""
from __future__ import annotations

import copy
import importlib
import importlib.machinery
import importlib.util
import re
import sys
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Optional

from facts.errors import FactforgeError
from facts.hashing import sha256_hex

from . import readers, sandbox

if TYPE_CHECKING:
    from .apikit import DomainApi
    from .simtests import Scenario, ScenarioContext

Number = float | int


@dataclass(frozen=True)
class TestQuota:
    """What a domain's held-out tests must reach (checked when the suite is built)."""
    min_tests: int = 0
    min_trap_share: float = 0.0
    full_value_coverage: bool = False   # every fact with a numeric slot exercised by a test


class DomainCode(ABC):
    """What a domain pack's Python provides. Subclass it in `seed.py` and assign an instance
    to `DOMAIN`."""

    #: policy values the seed depends on (a variant may override any of them)
    values: Mapping[str, Number] = {}
    #: VALUES key -> a substring of the policy that states it (ends with the value)
    value_facts: Mapping[str, str] = {}
    #: whether `generate` applies a variant's price scaling itself (else prices are scaled
    #: in the generated database by the variant machinery)
    scales_prices: bool = False
    #: what the held-out tests must reach
    test_quota: TestQuota = TestQuota()

    @abstractmethod
    def generate(self, pack, seed: int, values: Optional[Mapping[str, Number]] = None,
                 price_scale: float = 1.0) -> dict[str, Any]:
        """The seed database, deterministic in (pack, seed, values, price_scale)."""

    def check(self, pack, db: dict[str, Any], values: Optional[Mapping[str, Number]] = None) -> list[str]:
        """Every way `db` breaks the policy under `values` (empty when it obeys)."""
        return []

    def api(self, pack, values: Optional[Mapping[str, Number]] = None) -> Optional["DomainApi"]:
        """The domain API bound to `pack` and its values, or None for a pack without one."""
        return None

    def scenarios(self, ctx: "ScenarioContext") -> list["Scenario"]:
        """Drafts of the held-out simulations over `ctx.db` (the seed database)."""
        return []

    def merged_values(self, values: Optional[Mapping[str, Number]] = None) -> dict[str, Number]:
        """`values` over the defaults; an unknown key or a non-number is a user error."""
        out = dict(self.values)
        for k, v in (values or {}).items():
            if k not in out:
                raise FactforgeError(f"unknown policy value {k!r}; known: {', '.join(sorted(out)) or 'none'}")
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise FactforgeError(f"policy value {k!r} must be a number, not {v!r}")
            out[k] = v
        return out


class StaticDatabase(DomainCode):
    """A pack whose database is a JSON file (`db.json`, e.g. an imported tau2 domain)."""

    def __init__(self, path: Path):
        self.path = path
        self._db: Optional[dict] = None

    def generate(self, pack, seed: int, values=None, price_scale: float = 1.0) -> dict[str, Any]:
        if self._db is None:
            self._db = readers.parse_json(readers.read_text(self.path), self.path)
        return copy.deepcopy(self._db)


class NoDatabase(DomainCode):
    """A pack with neither `seed.py` nor `db.json`: its database is empty."""

    def generate(self, pack, seed: int, values=None, price_scale: float = 1.0) -> dict[str, Any]:
        return {}


_CODE: dict[str, DomainCode] = {}


def package_name(folder: Path) -> str:
    """The import name of a pack folder: unique per resolved path."""
    folder = folder.resolve()
    slug = re.sub(r"[^0-9a-zA-Z_]", "_", folder.name) or "pack"
    return f"factforge_pack_{slug}_{sha256_hex(str(folder))[:10]}"


def import_pack_module(folder: Path, module: str):
    """Import `<folder>/<module>.py` as a submodule of the pack's own package."""
    folder = folder.resolve()
    pkg = package_name(folder)
    if pkg not in sys.modules:
        spec = importlib.machinery.ModuleSpec(pkg, None, is_package=True)
        spec.submodule_search_locations = [str(folder)]
        sys.modules[pkg] = importlib.util.module_from_spec(spec)
    return importlib.import_module(f"{pkg}.{module}")


def load_code(folder: Path) -> DomainCode:
    """The `DomainCode` of the pack in `folder` (cached per folder)."""
    folder = Path(folder).resolve()
    key = str(folder)
    if key in _CODE:
        return _CODE[key]
    seed_py, db_json = folder / "seed.py", folder / "db.json"
    if seed_py.exists():
        if not sandbox.inside():
            sandbox.run(folder, None)  # a module that hangs or fails on import is stopped and named there
        mod = import_pack_module(folder, "seed")
        code = vars(mod).get("DOMAIN")
        if not isinstance(code, DomainCode):
            raise FactforgeError("seed.py must define DOMAIN, an instance of a domains.contract.DomainCode "
                                 "subclass (see `factforge new-domain` for an example)", seed_py)
    elif db_json.exists():
        code = StaticDatabase(db_json)
    else:
        code = NoDatabase()
    _CODE[key] = code
    return code
