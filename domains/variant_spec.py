"""Rebranded, contamination-resistant variants of a domain pack.

A variant spec `domains/<name>/variants/<variant>.toml` (or `.yaml`) rebrands a pack and
changes some of its policy values, so a benchmark built from the variant cannot be
answered from memory of the base pack:

- `[variant]` name, description;
- `[brand]` replacement values for fields of the pack's `Brand` (products and id prefixes
  are merged into the base ones by generic key);
- `[renames]` extra text renames "old" = "new" (cities, people, product words...); brand
  changes imply renames too (old company -> new company, people by position, id prefixes
  followed by digits);
- `[[values]]` substitutions, addressed by `fact` (id), `match` (substring of one fact's
  statement) or `slot_value` (+ optional `section`), with optional `slot` and `to`;
- `[database]` `scale_prices`, `price_fields`, `values` (explicit seed VALUES overrides);
- `[[derived]]` seed VALUES recomputed from others (`expr` over the VALUES namespace).

`load_variant(base, name)` validates everything against the base facts and writes nothing;
every problem is a `FactforgeError` naming the file, the entry ("values[3]") and its line.
The `VariantSpec` it returns derives the variant's brand, facts and database from the
base pack (see `domains.variants.World`). Fact ids are value-masked content hashes, so a
substituted fact keeps its base id.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Union

from pydantic import Field, ValidationError

from facts.errors import FactforgeError
from facts.hashing import content_hash
from facts.models import NUMERIC_TYPES, Condition, Fact, FactSet, Slot, SlotType, UnparsedLine, slugify
from facts.strict import StrictModel

from . import readers, sandbox
from .pack import Brand, DomainPack, PackFile
from .readers import toml_entry_line, yaml_entry_line
from .renaming import Renamer, Term, brand_leaks_in_tree, distinctive, renamed_anchors, sorted_terms, term_regex
from .safe_expr import expr_names, safe_eval, tidy_number
from .seedkit import money
from .value_feeds import (Substitution, ValueFeed, numeric_slots, resolve_value_facts, restyle_slot, slot_in_unit,
                          slot_number, slot_spans)

VARIANT_SCHEMA_VERSION = "1.0"
SUFFIXES = (".toml", ".yaml", ".yml")
SUBSTITUTABLE = NUMERIC_TYPES + (SlotType.date,)
DEFAULT_PRICE_FIELDS = ["price", "prices", "unit_price", "list_price"]


# --------------------------------------------------------------------------- file schema

class VariantInfo(StrictModel):
    name: str
    description: str = ""


class ValueSub(StrictModel):
    fact: Optional[str] = None
    match: Optional[str] = None
    slot_value: Optional[str] = None
    section: Optional[str] = None
    slot: Optional[str] = None
    to: Union[str, int, float]


class DatabaseSpec(StrictModel):
    scale_prices: float = Field(1.0, gt=0, le=100)
    price_fields: list[str] = Field(default_factory=lambda: list(DEFAULT_PRICE_FIELDS))
    values: dict[str, Union[int, float]] = Field(default_factory=dict)


class DerivedValue(StrictModel):
    key: str
    expr: str


class VariantFile(StrictModel):
    variant: VariantInfo
    brand: dict[str, Any] = Field(default_factory=dict)
    renames: dict[str, str] = Field(default_factory=dict)
    values: list[ValueSub] = Field(default_factory=list)
    database: DatabaseSpec = Field(default_factory=DatabaseSpec)
    derived: list[DerivedValue] = Field(default_factory=list)


# --------------------------------------------------------------------------- the spec

BRAND_FIELDS = tuple(Brand.model_fields)
_PEOPLE = ("agents", "managers", "customers")


class VariantSpec:
    """A validated variant of one base pack. Build with `load_variant`."""

    def __init__(self, base: DomainPack, path: Path, text: str, data: dict, spec: VariantFile):
        self.base = base
        self.base_name = base.name
        self.path = path
        self.text = text
        self.data = data
        self.spec = spec
        self.name = path.stem
        self.brand = self._merged_brand(base)
        self.terms: list[Term] = []          # every base string that must not survive
        self.renamer = Renamer(())
        self._subs_cache: dict[str, list[Substitution]] = {}
        self._explicit_cache: dict[str, list[Substitution]] = {}
        self._values_cache: dict[str, dict[str, Union[int, float]]] = {}
        self._feeds_cache: dict[str, dict[str, ValueFeed]] = {}

    # ---- errors ---------------------------------------------------------------------
    def error(self, entry: str, reason: str, loc: tuple = ()) -> FactforgeError:
        if self.path.suffix == ".toml":
            line = toml_entry_line(self.text, loc)
        else:
            line = yaml_entry_line(self.text, loc)
        return FactforgeError(f"{entry}: {reason}" if entry else reason, self.path, line)

    # ---- identity -------------------------------------------------------------------
    @property
    def hash(self) -> str:
        return content_hash({"schema_version": VARIANT_SCHEMA_VERSION, "base": self.base_name,
                             "variant": self.name, "spec": self.spec.model_dump(mode="json")})

    @property
    def scale_prices(self) -> float:
        return self.spec.database.scale_prices

    # ---- brand and renames ----------------------------------------------------------
    def _merged_brand(self, base: DomainPack) -> Brand:
        upd = dict(self.spec.brand)
        for k in upd:
            if k not in BRAND_FIELDS:
                raise self.error(f"brand.{k}", f"unknown brand field; known: {', '.join(BRAND_FIELDS)}",
                                 ("brand", k))
        merged = base.brand.model_dump()
        for k, v in upd.items():
            if k in ("products", "id_prefixes") and isinstance(v, dict):
                unknown = sorted(set(v) - set(merged[k]))
                if unknown:
                    raise self.error(f"brand.{k}.{unknown[0]}",
                                     f"not a {k[:-1].replace('_', ' ')} key of the base pack; known: "
                                     f"{', '.join(merged[k])}", ("brand", k))
                merged[k] = {**merged[k], **v}
            else:
                merged[k] = v
        try:
            return Brand.model_validate(merged)
        except ValidationError as e:
            err = e.errors()[0]
            loc = tuple(err["loc"])
            raise self.error(f"brand.{'.'.join(map(str, loc))}", err["msg"], ("brand", *loc[:1])) from None

    def _brand_terms(self, base: DomainPack) -> list[Term]:
        """Renames implied by the brand change, plus leak terms for base names dropped."""
        b0, b1 = base.brand, self.brand
        out: list[Term] = []
        for f in ("company", "short_name", "email_domain", "website", "tagline", "phone"):
            old, new = getattr(b0, f), getattr(b1, f)
            if old and old != new:
                out.append(Term(old, new or None, "ci", f"brand.{f}"))
        for g, old in b0.products.items():
            new = b1.products.get(g)
            if old and old != new:
                out.append(Term(old, new, "ci" if distinctive(old) else "cs", f"brand.products.{g}"))
        for e, old in b0.id_prefixes.items():
            new = b1.id_prefixes.get(e)
            if old and old != new:
                out.append(Term(old, new, "prefix", f"brand.id_prefixes.{e}"))
        for f in _PEOPLE:
            olds, news = getattr(b0, f), getattr(b1, f)
            kept = set(news)
            for i, old in enumerate(olds):
                new = news[i] if i < len(news) else None
                if old != new and old not in kept:
                    out.append(Term(old, new, "ci" if distinctive(old) else "cs", f"brand.{f}[{i}]"))
        return out

    def _build_terms(self, base: DomainPack) -> None:
        terms = self._brand_terms(base)
        for old, new in self.spec.renames.items():
            if not old.strip() or not new.strip():
                raise self.error(f"renames.{old}", "empty rename", ("renames", old))
            generic = {g.lower() for g in base.brand.products}
            if old.lower() in generic:
                raise self.error(f"renames.{old}", f"{old!r} is a generic product term of {base.name} (a key of "
                                 "brand.products, which files print as such); rename the brand product instead",
                                 ("renames", old))
            terms.append(Term(old, new, "ci" if distinctive(old) else "cs", f"renames.{old}"))
        # the same old renamed twice, two olds becoming one new
        by_old: dict[str, Term] = {}
        by_new: dict[str, Term] = {}
        uniq: list[Term] = []
        for t in terms:
            k = t.old if t.mode != "ci" else t.old.lower()
            if k in by_old:
                if by_old[k].new != t.new:
                    raise self._term_error(t, f"rename collision: {t.old!r} is renamed to {by_old[k].new!r} "
                                              f"({by_old[k].origin}) and to {t.new!r} ({t.origin})")
                continue
            by_old[k] = t
            uniq.append(t)
            if t.new is None:
                continue
            nk = t.new.lower()
            if nk in by_new and by_new[nk].old != t.old:
                raise self._term_error(t, f"rename collision: {by_new[nk].old!r} ({by_new[nk].origin}) and "
                                          f"{t.old!r} ({t.origin}) both become {t.new!r}")
            by_new[nk] = t
        base_names = self._base_names(base)
        for t in uniq:
            if t.new is None:
                continue
            other = base_names.get(t.new.lower())
            if other is not None and other != t.old.lower():
                raise self._term_error(t, f"rename collision: new name {t.new!r} for {t.old!r} is an existing "
                                          f"base name ({other!r}); pick a name the base pack does not use")
        rx, ordered = term_regex(uniq), sorted_terms(uniq)
        for t in uniq:
            if t.new is None or rx is None:
                continue
            for m in rx.finditer(t.new):
                hit = ordered[m.lastindex - 1]
                if hit.old != t.old:
                    raise self._term_error(t, f"new name {t.new!r} for {t.old!r} still contains the base "
                                              f"term {hit.old!r} ({hit.origin}), which would leak")
        self.terms = uniq
        self.renamer = Renamer(uniq)

    def _base_names(self, base: DomainPack) -> dict[str, str]:
        b = base.brand
        names = [b.company, b.short_name, b.email_domain, b.website, *b.products.values(),
                 *b.id_prefixes.values(), *b.agents, *b.managers, *b.customers, *self.spec.renames]
        return {n.lower(): n.lower() for n in names if n}

    def _term_error(self, t: Term, reason: str) -> FactforgeError:
        parts = t.origin.replace("[", ".").replace("]", "").split(".")
        loc: tuple = ("renames", t.old) if t.origin.startswith("renames") else ("brand", parts[1])
        return self.error(t.origin, reason, loc)

    # ---- value substitutions ---------------------------------------------------------
    def substitutions(self, factset: FactSet) -> list[Substitution]:
        """Every value change of the variant resolved against the base `factset`: the
        [[values]] entries, then the facts stating a seed value that [database].values or
        [[derived]] changed (so facts and database agree). Cached by the factset's hash."""
        key = factset.hash
        if key not in self._subs_cache:
            explicit = self._explicit(factset)
            self._subs_cache[key] = explicit + self._implied(factset, explicit)
        return self._subs_cache[key]

    def _explicit(self, factset: FactSet) -> list[Substitution]:
        key = factset.hash
        if key not in self._explicit_cache:
            self._explicit_cache[key] = self._resolve(factset)
        return self._explicit_cache[key]

    def _implied(self, factset: FactSet, explicit: list[Substitution]) -> list[Substitution]:
        values = self.db_values(self.base, factset)
        feeds = self.value_feeds(self.base, factset)
        by_id = factset.by_id()
        done = {(s.fact_id, s.slot): s for s in explicit}
        origin = {k: ("database.values." + k, ("database", "values")) for k in self.spec.database.values}
        for i, d in enumerate(self.spec.derived):
            origin[d.key] = (f"derived[{i}]", ("derived", i, "key"))
        out: list[Substitution] = []
        for k, (entry, loc) in origin.items():
            fd = feeds.get(k)
            if fd is None or fd.fact_id not in by_id:
                continue
            f = by_id[fd.fact_id]
            old = next(s for s in f.slots if s.name == fd.slot)
            n = tidy_number(values[k] / fd.factor)
            prev = done.get((f.id, old.name))
            if prev is not None:
                have = slot_number(prev.new, fd.component if slot_number(prev.new, fd.component) is not None
                                    else "value")
                if have is None or abs(have - n) > 1e-6:
                    raise self.error(entry, f"sets {k} = {values[k]} but {prev.entry} gives fact {f.id} the value "
                                            f"{prev.new.text!r}", loc)
                continue
            if abs((slot_number(old, fd.component) or 0) - n) < 1e-9:
                continue
            new = restyle_slot(old, fd.component, n)
            if new is None:
                raise self.error(entry, f"sets {k} = {values[k]}, which fact {f.id} ({old.text!r}) cannot state", loc)
            sub = Substitution(entry, f.id, old.name, old, new)
            done[(f.id, old.name)] = sub
            out.append(sub)
        return out

    def _resolve(self, factset: FactSet) -> list[Substitution]:
        from facts.values import parse_slots  # noqa: PLC0415

        out: list[Substitution] = []
        seen: dict[tuple[str, str], str] = {}
        currency = "USD"
        for i, v in enumerate(self.spec.values):
            entry, loc = f"values[{i}]", ("values", i)
            addr = [a for a in ("fact", "match", "slot_value") if getattr(v, a) is not None]
            if len(addr) != 1:
                raise self.error(entry, "give exactly one of fact, match, slot_value "
                                        f"(got {', '.join(addr) or 'none'})", loc)
            targets = self._targets(v, factset, entry, loc)
            to_text = str(v.to).strip()
            parsed = parse_slots(to_text, currency, bare_counts=True)
            if len(parsed) != 1:
                raise self.error(entry, f"to = {to_text!r} does not parse to one value "
                                        f"(money, duration, count, percent or date)", loc + ("to",))
            new = parsed[0]
            for f, slot in targets:
                if slot.type not in SUBSTITUTABLE:
                    raise self.error(entry, f"slot {slot.name!r} of fact {f.id} is {slot.type.value}; only "
                                            "money, duration, count, percent and date values can be substituted", loc)
                if new.type != slot.type:
                    raise self.error(entry, f"to = {to_text!r} is {new.type.value} but slot {slot.name!r} "
                                            f"({slot.text!r}) of fact {f.id} is {slot.type.value}", loc + ("to",))
                if slot.type == SlotType.money and (new.unit or "USD") != (slot.unit or "USD"):
                    raise self.error(entry, f"to = {to_text!r} is in {new.unit} but slot {slot.name!r} "
                                            f"({slot.text!r}) is in {slot.unit}", loc + ("to",))
                if (new.type, new.value, new.value_max, new.unit) == (slot.type, slot.value, slot.value_max, slot.unit):
                    raise self.error(entry, f"to = {to_text!r} equals the base value of fact {f.id}", loc + ("to",))
                k = (f.id, slot.name)
                if k in seen:
                    raise self.error(entry, f"slot {slot.name!r} of fact {f.id} is already substituted by "
                                            f"{seen[k]}", loc)
                seen[k] = entry
                repl = Slot(name=slot.name, type=slot.type, text=to_text, value=new.value,
                            value_max=new.value_max, unit=new.unit if slot.type != SlotType.count else slot.unit,
                            qualifier=slot.qualifier)
                out.append(Substitution(entry, f.id, slot.name, slot, repl))
        return out

    def _targets(self, v: ValueSub, factset: FactSet, entry: str, loc: tuple) -> list[tuple[Fact, Slot]]:
        facts = factset.facts
        if v.fact is not None:
            hit = [f for f in facts if f.id == v.fact]
            if not hit:
                raise self.error(entry, f"fact = {v.fact!r} matches no fact of {factset.domain}", loc + ("fact",))
            return [(hit[0], self._pick_slot(hit[0], v.slot, entry, loc))]
        if v.match is not None:
            hit = [f for f in facts if v.match in f.statement]
            if not hit:
                hit = [f for f in facts if v.match.lower() in f.statement.lower()]
            if not hit:
                raise self.error(entry, f"match = {v.match!r} matches no fact statement", loc + ("match",))
            if len(hit) > 1:
                ids = ", ".join(f"{f.id} ({f.statement[:60]!r})" for f in hit[:4])
                raise self.error(entry, f"match = {v.match!r} matches {len(hit)} facts: {ids}; make it longer "
                                        "or address the fact by id", loc + ("match",))
            return [(hit[0], self._pick_slot(hit[0], v.slot, entry, loc))]
        out = []
        sec = v.section.lower() if v.section else None
        for f in facts:
            if sec and not any(sec == s.lower() for s in f.section):
                continue
            for s in f.slots:
                if s.text == v.slot_value and (v.slot is None or s.name == v.slot):
                    out.append((f, s))
        if not out:
            where = f" in section {v.section!r}" if v.section else ""
            raise self.error(entry, f"slot_value = {v.slot_value!r} matches no fact{where}", loc + ("slot_value",))
        return out

    def _pick_slot(self, f: Fact, name: Optional[str], entry: str, loc: tuple) -> Slot:
        if name is not None:
            for s in f.slots:
                if s.name == name:
                    return s
            raise self.error(entry, f"fact {f.id} has no slot {name!r}; slots: "
                                    f"{', '.join(s.name for s in f.slots) or 'none'}", loc + ("slot",))
        num = numeric_slots(f) or [s for s in f.slots if s.type == SlotType.date]
        if not num:
            raise self.error(entry, f"fact {f.id} ({f.statement[:60]!r}) has no numeric slot to substitute", loc)
        return num[0]

    # ---- facts ----------------------------------------------------------------------
    def fact_id(self, base_id: str) -> str:
        """The variant id of a base fact id. Ids keep their value-masked hash; only the
        readable section slug is re-derived when a rename changes it (a slug such as
        "larkspur-loop-membership" would carry the base brand into every file)."""
        domain, _, rest = base_id.partition(".")
        slug, _, digest = rest.rpartition(".")
        if not slug or not digest:
            return base_id
        words = slug.replace("-", " ")
        new = self.renamer(words)
        return base_id if new == words else f"{domain}.{slugify(new, 24)}.{digest}"

    def apply_facts(self, base_factset: FactSet) -> FactSet:
        """The variant's facts: ids kept (see `fact_id`), substituted values, renames applied."""
        subs: dict[str, list[Substitution]] = {}
        for s in self.substitutions(base_factset):
            subs.setdefault(s.fact_id, []).append(s)
        R = self.renamer
        facts = []
        for f in base_factset.facts:
            statement, slots = f.statement, list(f.slots)
            if f.id in subs:
                spans = slot_spans(statement, slots)
                by_name = {s.slot: s for s in subs[f.id]}
                for name, (a, b) in sorted(spans.items(), key=lambda kv: -kv[1][0]):
                    if name in by_name:
                        statement = statement[:a] + by_name[name].new.text + statement[b:]
                slots = [by_name[s.name].new if s.name in by_name else s for s in slots]
            new_slots = []
            for s in slots:
                if s.type in (SlotType.enum, SlotType.identifier):
                    t = R(s.text)
                    val = R(str(s.value)) if isinstance(s.value, str) else s.value
                    s = s.model_copy(update={"text": t, "value": val})
                new_slots.append(s)
            facts.append(f.model_copy(update={
                "id": self.fact_id(f.id),
                "depends_on": [self.fact_id(d) for d in f.depends_on],
                "statement": R(statement),
                "section": [R(x) for x in f.section],
                "slots": new_slots,
                "conditions": [Condition(attribute=R(c.attribute), value=R(c.value)) for c in f.conditions],
                "anchors": renamed_anchors(f, R(statement), R),
            }))
        unparsed = [UnparsedLine(file=u.file, line=u.line, text=R(u.text), reason=u.reason)
                    for u in base_factset.unparsed]
        return FactSet(schema_version=base_factset.schema_version, domain=base_factset.domain,
                       source_file=base_factset.source_file, facts=facts, unparsed=unparsed,
                       decomposer=base_factset.decomposer)

    # ---- pack -----------------------------------------------------------------------
    def apply_pack(self, base: DomainPack) -> DomainPack:
        """A new pack object (same folder, same name) carrying the variant's brand."""
        info = base.info.model_copy(update={"description": self.renamer(base.info.description)})
        return DomainPack(base.path, PackFile(domain=info, brand=self.brand.model_copy(deep=True)))

    # ---- database -------------------------------------------------------------------
    def seed_values(self, base: DomainPack) -> dict[str, Union[int, float]]:
        return dict(base.code.values)

    def value_feeds(self, base: DomainPack, factset: FactSet) -> dict[str, ValueFeed]:
        """seed VALUE_FACTS resolved to (fact, slot, component, factor), by VALUES key."""
        key = f"{base.path}:{factset.hash}"
        if key not in self._feeds_cache:
            self._feeds_cache[key] = resolve_value_facts(base, factset)
        return self._feeds_cache[key]

    def db_values(self, base: DomainPack, base_factset: FactSet) -> dict[str, Union[int, float]]:
        """Seed VALUES under the variant: the new values of substituted facts that state a
        seed value (seed VALUE_FACTS), then [database].values, then [[derived]] in order."""
        ck = f"{base.path}:{base_factset.hash}"
        if ck in self._values_cache:
            return dict(self._values_cache[ck])
        values = self.seed_values(base)
        feeds = self.value_feeds(base, base_factset)
        by_slot: dict[tuple[str, str], list[ValueFeed]] = {}
        for fd in feeds.values():
            by_slot.setdefault((fd.fact_id, fd.slot), []).append(fd)
        for s in self._explicit(base_factset):
            for fd in by_slot.get((s.fact_id, s.slot), []):
                comp = fd.component if slot_number(s.new, fd.component) is not None else "value"
                n = slot_in_unit(s.new, comp, s.old.unit)
                if n is None:
                    raise self.error(s.entry, f"the new value {s.new.text!r} cannot be expressed in "
                                              f"{s.old.unit}, the unit of seed value {fd.key!r}",
                                     ("values", int(s.entry[7:-1]), "to"))
                values[fd.key] = tidy_number(n * fd.factor)
        values.update(self.spec.database.values)
        for i, d in enumerate(self.spec.derived):
            try:
                values[d.key] = safe_eval(d.expr, values)
            except ValueError as e:
                raise self.error(f"derived[{i}]", f"expr = {d.expr!r}: {e}", ("derived", i, "expr")) from None
        self._values_cache[ck] = dict(values)
        return values

    def apply_database(self, base: DomainPack, pack: DomainPack, seed: int) -> dict[str, Any]:
        """The seed database regenerated under the variant's values and brand, then renamed
        (keys and values alike) and price-scaled."""
        code = base.code
        scaled = code.scales_prices and self.scale_prices != 1
        db = sandbox.run(base.path, "generate", pack, seed, self.db_values(base, base.facts),
                         self.scale_prices if scaled else 1.0)
        db = self.renamer.tree(db)
        if self.scale_prices != 1 and not scaled:
            db = scale_prices(db, self.scale_prices, self.spec.database.price_fields)
        return db

    def check_database(self, base: DomainPack, pack: DomainPack, db: dict[str, Any]) -> list[str]:
        """The base seed's own checks under the variant's values, plus: no base brand string
        left anywhere in the database (keys included)."""
        problems = list(sandbox.run(base.path, "check", pack, db, self.db_values(base, base.facts)))
        problems += brand_leaks_in_tree(db, self.terms)
        return problems

    # ---- validation -----------------------------------------------------------------
    def validate(self, base: DomainPack) -> None:
        self._build_terms(base)
        values = self.seed_values(base)
        for k in self.spec.database.values:
            if k not in values:
                raise self.error(f"database.values.{k}", f"unknown seed VALUES key of {base.name}; known: "
                                 f"{', '.join(sorted(values)) or 'none'}", ("database", "values"))
        names = set(values)
        set_by = {k: "database.values" for k in self.spec.database.values}
        for i, d in enumerate(self.spec.derived):
            entry, loc = f"derived[{i}]", ("derived", i)
            if d.key not in values:
                raise self.error(entry, f"key = {d.key!r} is not a seed VALUES key of {base.name}", loc + ("key",))
            if d.key in set_by:
                raise self.error(entry, f"key = {d.key!r} is already set by {set_by[d.key]}", loc + ("key",))
            set_by[d.key] = entry
            try:
                unknown = [n for n in expr_names(d.expr) if n not in names]
            except ValueError as e:
                raise self.error(entry, f"expr = {d.expr!r}: {e}", loc + ("expr",)) from None
            if unknown:
                raise self.error(entry, f"expr = {d.expr!r} uses unknown value {unknown[0]!r}", loc + ("expr",))
        self.substitutions(base.facts)  # resolves addresses, evaluates derived values


# --------------------------------------------------------------------------- helpers


def scale_prices(db: Any, factor: float, fields: list[str]) -> Any:
    """Multiply every number under a key named in `fields` by `factor`, rounded to cents
    (whole amounts stay ints). Dict order is kept."""
    wanted = set(fields)

    def num(v: Any) -> Any:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return scale(v, True)
        return money(float(v) * factor)

    def scale(obj: Any, inside: bool) -> Any:
        if isinstance(obj, dict):
            return {k: (num(v) if inside or k in wanted else scale(v, False)) if not isinstance(v, (dict, list))
                    else scale(v, inside or k in wanted) for k, v in obj.items()}
        if isinstance(obj, list):
            return [num(v) if inside and not isinstance(v, (dict, list)) else scale(v, inside) for v in obj]
        return obj

    return scale(db, False)


# --------------------------------------------------------------------------- loading

def variant_path(base: DomainPack, name: str) -> Path:
    d = base.variants_dir()
    for suf in SUFFIXES:
        p = d / f"{name}{suf}"
        if p.exists():
            return p
    raise FactforgeError(f"unknown variant {name!r} of domain {base.name!r}", d)


def read_variant_file(path: Path) -> tuple[str, dict]:
    text, data = readers.load_toml(path) if path.suffix == ".toml" else readers.load_yaml(path)
    if not isinstance(data, dict):
        raise FactforgeError("a variant spec must be a mapping", path, 1)
    return text, data


def parse_variant(base: DomainPack, path: Path) -> VariantSpec:
    """Parse and validate one spec file against `base` (nothing is written)."""
    text, data = read_variant_file(path)
    try:
        spec = VariantFile.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        loc = tuple(err["loc"])
        entry = "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p)) for i, p in enumerate(loc))
        line = toml_entry_line(text, loc) if path.suffix == ".toml" else yaml_entry_line(text, loc)
        raise FactforgeError(f"{entry}: {err['msg']}", path, line) from None
    vs = VariantSpec(base, path, text, data, spec)
    vs.validate(base)
    return vs


def load_variant(base: DomainPack, name: str) -> VariantSpec:
    """The variant `name` of `base`, validated up front against the base facts."""
    return parse_variant(base, variant_path(base, name))
