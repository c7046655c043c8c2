"""Worlds: a domain pack as built, either the base pack or a rebranded variant of it.

A partition key is "<domain>" or "<domain>@<variant>"; `resolve` turns it into a `World`
that yields the facts, database and brand for that build. Variant specs live in
`domains/<name>/variants/<variant>.toml|yaml` (see `domains.variant_spec`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from facts.errors import FactforgeError
from facts.models import FactSet

from facts.names import check_name

from .pack import DomainPack, get_pack
from .simtests import build_suite
from .variant_spec import SUFFIXES as VARIANT_SUFFIXES
from .variant_spec import load_variant


def list_variants(pack: DomainPack) -> list[str]:
    d = pack.variants_dir()
    if not d.is_dir():
        return []
    return sorted(p.stem for p in d.iterdir() if p.suffix in VARIANT_SUFFIXES and not p.name.startswith("."))


@dataclass
class World:
    base: DomainPack
    variant: Optional[str] = None
    spec: Any = None  # domains.variant_spec.VariantSpec for variants
    pack: DomainPack = field(init=False)

    def __post_init__(self):
        self.pack = self.spec.apply_pack(self.base) if self.spec is not None else self.base

    @property
    def key(self) -> str:
        return f"{self.base.name}@{self.variant}" if self.variant else self.base.name

    def factset(self, decomposer: str = "builtin") -> FactSet:
        fs = self.base.factset(decomposer)
        return self.spec.apply_facts(fs) if self.spec is not None else fs

    def base_values(self) -> dict[str, set]:
        """For a variant: fact id -> the base domain's value keys of that fact (matched by the
        id's hash, which a renamed section keeps), so the planner never uses an original
        figure as a wrong or old value in the rebrand; {} for a base domain."""
        if self.spec is None:
            return {}
        base = {f.id.rsplit(".", 1)[-1]: {s.key() for s in f.slots} for f in self.base.factset().facts}
        return {f.id: base[f.id.rsplit(".", 1)[-1]] for f in self.factset().facts if f.id.rsplit(".", 1)[-1] in base}

    def values(self) -> Optional[dict]:
        return self.spec.db_values(self.base, self.base.factset()) if self.spec is not None else None

    def database(self, seed: int = 0) -> dict:
        if self.spec is None:
            return self.base.database(seed)
        return self.spec.apply_database(self.base, self.pack, seed)

    def check_database(self, db: dict) -> list[str]:
        if self.spec is None:
            return self.base.check_database(db)
        return self.spec.check_database(self.base, self.pack, db)

    def api(self):
        """The domain API over this world's brand and values (None for a pack without one)."""
        return self.base.code.api(self.pack, self.values())

    def test_suite(self, seed: int = 0, db: Optional[dict] = None):
        """The sealed held-out tests of this world (`domains.simtests.SimSuite`)."""
        db = self.database(seed) if db is None else db
        values = self.base.code.merged_values(self.values())
        return build_suite(self.pack, db, self.factset(), values, seed, base=self.base, variant=self.variant,
                           check=self.check_database)


def resolve(key: str, extra_dirs: list[str | Path] | None = None) -> World:
    name, _, variant = key.partition("@")
    base = get_pack(name, extra_dirs)
    if not variant:
        return World(base)
    check_name(variant, "variant name", base.variants_dir())
    if variant not in list_variants(base):
        raise FactforgeError(f"unknown variant {variant!r} of domain {name!r}; available: "
                             f"{', '.join(list_variants(base)) or 'none'}")
    return World(base, variant, load_variant(base, variant))
