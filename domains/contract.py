"""The contract between factforge and a domain pack's Python code.

What a pack's code provides is one object, `DOMAIN`, defined in the pack's `domain.py`: a
`DomainCode`. It carries

- `values` / `value_facts`: the policy values the seed database depends on (a variant may
  override them) and, for each, a substring of the policy stating it;
- `generate(pack, seed, values, price_scale)`: the seed database (deterministic);
- `check(pack, db, values)`: every way a database breaks the policy (empty when it obeys);
- `api(pack, values)`: the domain API (`domains.apikit.DomainApi`), or None;
- `scenarios(ctx)`: the held-out simulations' drafts (`domains.simtests.Scenario`), turned
  into sealed tests by `domains.simtests.build_suite`.

A pack declares it with `PackCode(...)`, the one implementation: it is handed the pack's
functions and tables (`generate` from `seed.py`, `check` from `check.py`, the API catalog
from `api.py`, the scenarios from `scenarios.py`, the values from `rules.py`) and turns
them into the contract. Only `generate` is required. A pack without an API (imported tau2
packs, a fresh scaffold) leaves the rest out: `api` returns None and `scenarios` returns no
tests; everything else (facts, evidence, bundles) works as before.

Loading: the pack folder is imported as a package of its own (a name derived from its
path), so `domain.py` imports its sibling modules relatively (`from . import seed`)
whether the pack is built in or lives in a `--domains-dir`. A pack with a `db.json` and no
`domain.py` gets `StaticDatabase` (the file is its database); a pack with neither gets an
empty database. There is no probing for optional functions: a `domain.py` without a
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
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Optional

from pydantic import BaseModel, ConfigDict, ValidationError

from facts.errors import FactforgeError
from facts.hashing import sha256_hex

from . import readers, sandbox
from .seedkit import merged_values

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


class Row(BaseModel):
    """Base of a pack's typed database model (`model.py`): a record with exactly the fields
    named, no others (a table is a `dict[str, Row]`, the database a `Row` of tables)."""
    model_config = ConfigDict(extra="forbid", strict=False)


def database_problems(model: type[BaseModel], db: dict[str, Any], limit: int = 20) -> list[str]:
    """Where `db` departs from the pack's typed model: one line per field, at most `limit`."""
    try:
        model.model_validate(db)
    except ValidationError as e:
        return [f"database {'.'.join(str(x) for x in err['loc'])}: {err['msg']}" for err in e.errors()[:limit]]
    return []


class DomainCode(ABC):
    """What a domain pack's Python provides: `DOMAIN` in the pack's `domain.py`, a `PackCode`
    (or, for code that needs more, an instance of a subclass)."""

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
        return merged_values(self.values, values, "this pack")


class PackCode(DomainCode):
    """The contract made from a pack's declaration in its `domain.py`:

        DOMAIN = PackCode("airline", values=rules.VALUES, value_facts=rules.VALUE_FACTS,
                          generate=seed.generate, check=check.check, database=model.Database,
                          catalog=api.CATALOG,
                          scenarios=scenarios.scenarios, scales_prices=True,
                          test_quota=TestQuota(min_tests=60), increasing=[...])

    `generate(pack, seed, values)` (with `price_scale` too when `scales_prices`), `check(pack,
    db, values)`, `database` (the typed model of `model.py`: `check` reports a database that
    departs from it first), `catalog` (a `domains.apikit.Catalog`, bound to the pack and its
    merged values) and `scenarios(ctx)`. `increasing`, `not_above` and `at_least_one` are the
    constraints a variant's values must keep (`domains.seedkit.merged_values`)."""

    def __init__(self, name: str, *, generate: Callable[..., dict[str, Any]],
                 values: Optional[Mapping[str, Number]] = None, value_facts: Optional[Mapping[str, str]] = None,
                 check: Optional[Callable[..., list[str]]] = None, catalog: Any = None,
                 scenarios: Optional[Callable[["ScenarioContext"], list["Scenario"]]] = None,
                 database: Optional[type[BaseModel]] = None,
                 scales_prices: bool = False, test_quota: TestQuota = TestQuota(),
                 increasing: Iterable[tuple[str, str]] = (), not_above: Iterable[tuple[str, str]] = (),
                 at_least_one: Iterable[str] = ()):
        self.name = name
        self.values = dict(values or {})
        self.value_facts = dict(value_facts or {})
        self.database = database
        self.scales_prices = scales_prices
        self.test_quota = test_quota
        self._generate, self._check, self._catalog, self._scenarios = generate, check, catalog, scenarios
        self._constraints = {"increasing": tuple(increasing), "not_above": tuple(not_above),
                             "at_least_one": tuple(at_least_one)}

    def merged_values(self, values: Optional[Mapping[str, Number]] = None) -> dict[str, Number]:
        return merged_values(self.values, values, self.name, **self._constraints)

    def generate(self, pack, seed: int, values: Optional[Mapping[str, Number]] = None,
                 price_scale: float = 1.0) -> dict[str, Any]:
        if self.scales_prices:
            return self._generate(pack, seed, values, price_scale)
        if price_scale != 1:
            raise ValueError(f"the {self.name} seed does not scale prices itself")
        return self._generate(pack, seed, values)

    def check(self, pack, db: dict[str, Any], values: Optional[Mapping[str, Number]] = None) -> list[str]:
        """The database's departures from the typed model, else from the policy (`check`)."""
        if self.database is not None:
            problems = database_problems(self.database, db)
            if problems:
                return problems
        return self._check(pack, db, values) if self._check is not None else []

    def api(self, pack, values: Optional[Mapping[str, Number]] = None) -> Optional["DomainApi"]:
        return self._catalog.bind(pack, self.merged_values(values)) if self._catalog is not None else None

    def scenarios(self, ctx: "ScenarioContext") -> list["Scenario"]:
        return self._scenarios(ctx) if self._scenarios is not None else []


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
    """A pack with neither `domain.py` nor `db.json`: its database is empty."""

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
    entry, db_json = folder / sandbox.ENTRY, folder / "db.json"
    if entry.exists():
        if not sandbox.inside():
            sandbox.run(folder, None)  # a module that hangs or fails on import is stopped and named there
        mod = import_pack_module(folder, entry.stem)
        code = vars(mod).get("DOMAIN")
        if not isinstance(code, DomainCode):
            raise FactforgeError(f"{entry.name} must define DOMAIN, a domains.contract.PackCode "
                                 "(see `factforge new-domain` for an example)", entry)
    elif db_json.exists():
        code = StaticDatabase(db_json)
    else:
        code = NoDatabase()
    _CODE[key] = code
    return code
