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

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from facts.errors import FactforgeError
from facts.hashing import content_hash
from facts.models import (NUMERIC_TYPES, Condition, Fact, FactSet, Slot, SlotType, UnparsedLine, in_unit, slugify,
                          value_key)

from . import Brand, DomainPack, PackFile, readers, sandbox

VARIANT_SCHEMA_VERSION = "1.0"
SUFFIXES = (".toml", ".yaml", ".yml")
SUBSTITUTABLE = NUMERIC_TYPES + (SlotType.date,)
DEFAULT_PRICE_FIELDS = ["price", "prices", "unit_price", "list_price"]


# --------------------------------------------------------------------------- file schema

class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class VariantInfo(_Strict):
    name: str
    description: str = ""


class ValueSub(_Strict):
    fact: Optional[str] = None
    match: Optional[str] = None
    slot_value: Optional[str] = None
    section: Optional[str] = None
    slot: Optional[str] = None
    to: Union[str, int, float]


class DatabaseSpec(_Strict):
    scale_prices: float = Field(1.0, gt=0, le=100)
    price_fields: list[str] = Field(default_factory=lambda: list(DEFAULT_PRICE_FIELDS))
    values: dict[str, Union[int, float]] = Field(default_factory=dict)


class DerivedValue(_Strict):
    key: str
    expr: str


class VariantFile(_Strict):
    variant: VariantInfo
    brand: dict[str, Any] = Field(default_factory=dict)
    renames: dict[str, str] = Field(default_factory=dict)
    values: list[ValueSub] = Field(default_factory=list)
    database: DatabaseSpec = Field(default_factory=DatabaseSpec)
    derived: list[DerivedValue] = Field(default_factory=list)


# --------------------------------------------------------------------------- renaming

RenameMode = Literal["ci", "cs", "prefix"]


def _distinctive(term: str) -> bool:
    """Multi-word, dotted, digit-bearing or camel-cased terms are matched case-insensitively;
    a single plain word ("Main", "Grove") only with its own capitalisation, so ordinary
    prose ("the main reason") is left alone."""
    t = term.strip()
    return (" " in t or any(c.isdigit() or c in ".@&'_-" for c in t)
            or any(c.isupper() for c in t[1:]))


def _term_pattern(term: str, mode: RenameMode) -> str:
    esc = re.escape(term)
    pre = r"(?<![A-Za-z0-9])" if term[:1].isalnum() or mode == "prefix" else ""
    if mode == "prefix":
        return pre + esc + r"(?=\d)"
    post = (r"(?=s?(?![A-Za-z0-9]))" if term[-1:].isalpha() else r"(?![A-Za-z0-9])") if term[-1:].isalnum() else ""
    body = f"(?i:{esc})" if mode == "ci" else esc
    return pre + body + post


@dataclass(frozen=True)
class Term:
    """A base string that must not survive in a variant (with its replacement, if any)."""

    old: str
    new: Optional[str]
    mode: RenameMode
    origin: str  # "brand.company", "brand.customers[3]", "renames", ...

    def pattern(self) -> str:
        return _term_pattern(self.old, self.mode)


def _case_like(matched: str, old: str, new: str) -> str:
    if matched == old or not any(c.isalpha() for c in matched):
        return new
    if matched.islower():
        return new.lower()
    if matched.isupper() and not old.isupper():
        return new.upper()
    if matched[:1].isupper() and not old[:1].isupper():
        return new[:1].upper() + new[1:]
    return new


class Renamer:
    """Applies every rename in one left-to-right pass (longest term first at a position), so
    renames never chain (A -> B, B -> C does not turn A into C)."""

    def __init__(self, terms: Iterable[Term]):
        self.terms = sorted_terms(t for t in terms if t.new is not None and t.new != t.old)
        self._rx = term_regex(self.terms)

    def __call__(self, text: str) -> str:
        if self._rx is None or not text:
            return text

        def sub(m: re.Match) -> str:
            t = self.terms[m.lastindex - 1]
            return _case_like(m.group(0), t.old, t.new) if t.mode == "ci" else t.new

        return self._rx.sub(sub, text)

    def tree(self, obj: Any) -> Any:
        """Rename every string of a JSON-like value, dict keys included."""
        if isinstance(obj, str):
            return self(obj)
        if isinstance(obj, dict):
            return {(self(k) if isinstance(k, str) else k): self.tree(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self.tree(v) for v in obj]
        if isinstance(obj, tuple):
            return tuple(self.tree(v) for v in obj)
        return obj


def sorted_terms(terms: Iterable[Term]) -> list[Term]:
    """Longest first: the order of the groups of `term_regex` (group i+1 is term i)."""
    return sorted(terms, key=lambda t: (-len(t.old), t.old))


def term_regex(terms: Iterable[Term]) -> Optional[re.Pattern]:
    """One regex finding any of `terms`; `sorted_terms(terms)[m.lastindex - 1]` is the hit."""
    terms = sorted_terms(terms)
    return re.compile("|".join(f"({t.pattern()})" for t in terms)) if terms else None


# --------------------------------------------------------------------------- safe expressions

_BINOPS: dict[type, Callable[[float, float], float]] = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b,
}


def _check_expr(expr: str) -> ast.Expression:
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError as e:
        raise ValueError(f"invalid expression: {e.msg}") from None
    for node in ast.walk(tree):
        ok = isinstance(node, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Name, ast.Load,
                               ast.Add, ast.Sub, ast.Mult, ast.Div, ast.USub, ast.UAdd))
        if isinstance(node, ast.Constant):
            ok = isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
        if not ok:
            raise ValueError(f"{type(node).__name__} is not allowed (only + - * /, numbers and value names)")
    return tree


def expr_names(expr: str) -> list[str]:
    return sorted({n.id for n in ast.walk(_check_expr(expr)) if isinstance(n, ast.Name)})


def safe_eval(expr: str, names: dict[str, float]) -> Union[int, float]:
    """Evaluate `expr` (+ - * /, numbers, names) over `names`; ValueError on anything else."""
    def ev(n: ast.AST) -> float:
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant):
            return n.value
        if isinstance(n, ast.Name):
            if n.id not in names:
                raise ValueError(f"unknown value {n.id!r}")
            return names[n.id]
        if isinstance(n, ast.UnaryOp):
            v = ev(n.operand)
            return -v if isinstance(n.op, ast.USub) else v
        if isinstance(n, ast.BinOp):
            a, b = ev(n.left), ev(n.right)
            if isinstance(n.op, ast.Div) and b == 0:
                raise ValueError("division by zero")
            return _BINOPS[type(n.op)](a, b)
        raise ValueError(f"{type(n).__name__} is not allowed")
    return _tidy(ev(_check_expr(expr)))


def _tidy(v: Union[int, float]) -> Union[int, float]:
    if isinstance(v, float):
        v = round(v, 6)
        if v.is_integer():
            return int(v)
    return v


# --------------------------------------------------------------------------- locating entries

def _key_of(line: str) -> Optional[str]:
    s = line.strip()
    if "=" not in s or s.startswith("#") or s.startswith("["):
        return None
    k = s.split("=", 1)[0].strip()
    return k.strip("\"'")


def _toml_line(text: str, loc: tuple) -> Optional[int]:
    lines = text.splitlines()
    if not loc:
        return None
    sec = str(loc[0])
    idx = loc[1] if len(loc) > 1 and isinstance(loc[1], int) else None
    keys = [str(k) for k in loc[(2 if idx is not None else 1):] if not isinstance(k, int)]
    counts: dict[str, int] = {}
    cur, cur_idx, header_line = None, None, None
    best = None
    for i, line in enumerate(lines, 1):
        s = line.strip()
        if s.startswith("[[") and s.endswith("]]"):
            cur = s[2:-2].strip()
            cur_idx = counts.get(cur, 0)
            counts[cur] = cur_idx + 1
            if cur == sec and (idx is None or cur_idx == idx):
                header_line = i
                best = best or i
            continue
        if s.startswith("[") and s.endswith("]"):
            cur, cur_idx = s[1:-1].strip(), None
            if cur == sec and not keys:
                return i
            if keys and cur == f"{sec}.{keys[0]}":
                return i
            continue
        in_target = cur == sec and (idx is None or cur_idx == idx)
        if in_target and keys and _key_of(line) == keys[0]:
            return i
        if in_target and idx is None and not keys and best is None:
            best = i
    if header_line:
        return header_line
    if best:
        return best
    needle = keys[-1] if keys else sec
    for i, line in enumerate(lines, 1):
        if _key_of(line) == needle or line.strip() == f"[{needle}]":
            return i
    return None


def _yaml_line(text: str, loc: tuple) -> Optional[int]:
    lines = text.splitlines()
    if not loc:
        return None
    start = None
    for i, line in enumerate(lines):
        if re.match(rf"{re.escape(str(loc[0]))}\s*:", line):
            start = i
            break
    if start is None:
        return None
    pos, rest = start, list(loc[1:])
    while rest:
        k = rest.pop(0)
        if isinstance(k, int):
            items = [j for j in range(pos + 1, len(lines)) if re.match(r"\s*-\s", lines[j])]
            indents = [len(lines[j]) - len(lines[j].lstrip()) for j in items]
            if not items:
                break
            top = min(indents)
            items = [j for j, ind in zip(items, indents) if ind == top]
            if k >= len(items):
                break
            pos = items[k]
            m = re.match(r"\s*-\s*([\w\"']+)\s*:", lines[pos])
            if rest and m and m.group(1).strip("\"'") == str(rest[0]):
                rest.pop(0)
        else:
            for j in range(pos + 1, len(lines)):
                if re.match(rf"\s*(?:-\s*)?[\"']?{re.escape(str(k))}[\"']?\s*:", lines[j]):
                    pos = j
                    break
            else:
                break
    return pos + 1


# --------------------------------------------------------------------------- resolved pieces

@dataclass(frozen=True)
class Substitution:
    entry: str        # "values[3]"
    fact_id: str
    slot: str         # slot name
    old: Slot
    new: Slot


@dataclass(frozen=True)
class ValueFeed:
    """A seed VALUES key fed by one fact's slot: VALUES[key] = slot component * factor."""

    key: str
    fact_id: str
    slot: str
    component: Literal["value", "value_max"]
    factor: float


def _slot_number(slot: Slot, component: str) -> Optional[float]:
    v = slot.value if component == "value" else slot.value_max
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _in_unit(slot: Slot, component: str, unit: Optional[str]) -> Optional[float]:
    """The slot's value expressed in `unit` (durations convert between minutes..weeks)."""
    v = _slot_number(slot, component)
    if v is None:
        return None
    if slot.type != SlotType.duration:
        return v
    return in_unit(v, slot.unit, unit)


def _numeric_slots(f: Fact) -> list[Slot]:
    return [s for s in f.slots if s.type in NUMERIC_TYPES and isinstance(s.value, (int, float))]


def _slot_spans(statement: str, slots: list[Slot]) -> dict[str, tuple[int, int]]:
    """Where each slot's text sits in the statement (slots are in order of appearance)."""
    spans, cursor = {}, 0
    for s in slots:
        if not s.text:
            continue
        i = statement.find(s.text, cursor)
        if i < 0:
            i = statement.find(s.text)
        if i >= 0:
            spans[s.name] = (i, i + len(s.text))
            cursor = i + len(s.text)
    return spans


_NUM_RX = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _fmt_like(old: str, n: Union[int, float], money: bool = False) -> str:
    """Format n the way the number `old` was written (thousands commas, decimals)."""
    from facts.surface import fmt_num  # noqa: PLC0415

    if "." in old:
        out = f"{n:,.{len(old.split('.')[1])}f}"
    elif float(n).is_integer():
        out = f"{int(n):,}"
    else:
        out = f"{n:,.2f}" if money else fmt_num(n)
    plain_big = "," not in old and len(old.split(".")[0]) >= 4
    return out.replace(",", "") if plain_big else out


def _restyle(slot: Slot, component: str, n: Union[int, float]) -> Optional[Slot]:
    """The slot with its `component` set to n, written in the slot's own style
    ("$50" -> "$65", "24-hour" -> "48-hour", "25,000" -> "30,000"); None if it cannot be."""
    from facts.surface import fmt_num, int_to_words, unit_words  # noqa: PLC0415
    from facts.values import parse_slots  # noqa: PLC0415

    n = _tidy(n)
    upd = {component: n}
    if component == "value_max" and slot.value_max is None:
        return None
    probe = slot.model_copy(update=upd)
    ms = list(_NUM_RX.finditer(slot.text))
    i = 0 if component == "value" else 1
    texts = []
    if len(ms) > i:
        m = ms[i]
        t = slot.text[:m.start()] + _fmt_like(m.group(0), n, slot.type == SlotType.money) + slot.text[m.end():]
        if slot.type == SlotType.duration and slot.unit and "-" not in slot.text[m.end():m.end() + 1]:
            one, many = unit_words(slot.unit, 1), unit_words(slot.unit, 2)
            if n == 1 and t.endswith(" " + many):
                t = t[: -len(many)] + one
            elif n != 1 and t.endswith(" " + one) and one != many:
                t = t[: -len(one)] + many
        texts.append(t)
    elif isinstance(n, int) and 0 <= n < 1000 and slot.value_max is None and slot.type == SlotType.count:
        texts.append(int_to_words(n))
    if slot.type == SlotType.money:
        texts.append(f"${fmt_num(n)}" if (slot.unit or "USD") in ("USD", "CAD", "AUD") else f"{fmt_num(n)} {slot.unit}")
    elif slot.type == SlotType.percent and probe.value_max is None:
        texts.append(f"{fmt_num(n)}%")
    elif slot.type == SlotType.duration and probe.value_max is None:
        texts.append(f"{fmt_num(n)} {unit_words(slot.unit, n)}")
    elif slot.type == SlotType.count and probe.value_max is None:
        texts.append(fmt_num(n))
    for t in texts:
        got = parse_slots(t, slot.unit if slot.type == SlotType.money and slot.unit else "USD", bare_counts=True)
        if len(got) == 1 and got[0].key() == probe.key() and got[0].unit == probe.unit:
            return probe.model_copy(update={"text": t})
    return None


_TOKEN = re.compile(r"[a-z][a-z0-9]*(?:['’-][a-z0-9]+)*")


def _renamed_anchors(f: Fact, new_statement: str, R: "Renamer") -> list[str]:
    """Anchors of a renamed fact: each anchor renamed; an anchor that only belonged to a
    renamed phrase ("pass" of "Pass holders") gives way to a word of the new phrase."""
    anchors = list(dict.fromkeys(R(a) for a in f.anchors))
    new_low = new_statement.lower() + " " + " ".join(R(c.value).lower() for c in f.conditions)
    old_toks = set(_TOKEN.findall(f.statement.lower()))
    keep = [a for a in anchors if a.lower() in new_low or a.lower() not in f.statement.lower()]
    dropped = len(anchors) - len(keep)
    if dropped:
        fresh = [t for t in dict.fromkeys(_TOKEN.findall(new_statement.lower()))
                 if t not in old_toks and len(t) >= 3 and t not in keep]
        keep += fresh[:dropped]
    return keep


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
            line = _toml_line(self.text, loc)
        else:
            line = _yaml_line(self.text, loc)
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
                out.append(Term(old, new, "ci" if _distinctive(old) else "cs", f"brand.products.{g}"))
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
                    out.append(Term(old, new, "ci" if _distinctive(old) else "cs", f"brand.{f}[{i}]"))
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
            terms.append(Term(old, new, "ci" if _distinctive(old) else "cs", f"renames.{old}"))
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
            n = _tidy(values[k] / fd.factor)
            prev = done.get((f.id, old.name))
            if prev is not None:
                have = _slot_number(prev.new, fd.component if _slot_number(prev.new, fd.component) is not None
                                    else "value")
                if have is None or abs(have - n) > 1e-6:
                    raise self.error(entry, f"sets {k} = {values[k]} but {prev.entry} gives fact {f.id} the value "
                                            f"{prev.new.text!r}", loc)
                continue
            if abs((_slot_number(old, fd.component) or 0) - n) < 1e-9:
                continue
            new = _restyle(old, fd.component, n)
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
        num = _numeric_slots(f) or [s for s in f.slots if s.type == SlotType.date]
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
                spans = _slot_spans(statement, slots)
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
                "anchors": _renamed_anchors(f, R(statement), R),
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
                comp = fd.component if _slot_number(s.new, fd.component) is not None else "value"
                n = _in_unit(s.new, comp, s.old.unit)
                if n is None:
                    raise self.error(s.entry, f"the new value {s.new.text!r} cannot be expressed in "
                                              f"{s.old.unit}, the unit of seed value {fd.key!r}",
                                     ("values", int(s.entry[7:-1]), "to"))
                values[fd.key] = _tidy(n * fd.factor)
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
        r = round(float(v) * factor + 0.0, 2)
        return int(r) if r.is_integer() else r

    def scale(obj: Any, inside: bool) -> Any:
        if isinstance(obj, dict):
            return {k: (num(v) if inside or k in wanted else scale(v, False)) if not isinstance(v, (dict, list))
                    else scale(v, inside or k in wanted) for k, v in obj.items()}
        if isinstance(obj, list):
            return [num(v) if inside and not isinstance(v, (dict, list)) else scale(v, inside) for v in obj]
        return obj

    return scale(db, False)


def _surely_clean(db: Any, rx: re.Pattern, terms: list[Term]) -> bool:
    """True when no string of `db` (keys included) holds a term: one search of the strings
    joined by NUL, which no term holds and which, like a string's edge, is no letter or digit,
    so the terms' boundaries match exactly as they do string by string."""
    if any("\0" in t.old for t in terms):
        return False
    strings: list[str] = []
    stack = [db]
    while stack:
        o = stack.pop()
        if isinstance(o, str):
            strings.append(o)
        elif isinstance(o, dict):
            strings.extend(k for k in o if isinstance(k, str))
            stack.extend(o.values())
        elif isinstance(o, list):
            stack.extend(o)
    text = "\0".join(strings)
    if all(t.old.isascii() for t in terms):
        # a term can match only where its text occurs, whatever the case: search for those alone
        low = text.lower()
        terms = [t for t in terms if t.old.lower() in low]
        if not terms:
            return True
        rx = term_regex(terms)
    return rx.search(text) is None


def brand_leaks_in_tree(db: Any, terms: list[Term], limit: int = 50) -> list[str]:
    rx = term_regex(terms)
    if rx is None or _surely_clean(db, rx, terms):
        return []
    out: list[str] = []

    def walk(obj: Any, path: str) -> None:
        if len(out) >= limit:
            return
        if isinstance(obj, str):
            m = rx.search(obj)
            if m:
                t = terms_sorted[m.lastindex - 1]
                out.append(f"database {path or '/'}: base brand term {t.old!r} ({t.origin}) remains: {obj[:80]!r}")
        elif isinstance(obj, dict):
            for k, v in obj.items():
                if isinstance(k, str):
                    walk(k, f"{path}/{k}#key")
                walk(v, f"{path}/{k}")
        elif isinstance(obj, list):
            for i, v in enumerate(obj):
                walk(v, f"{path}[{i}]")

    terms_sorted = sorted_terms(terms)
    walk(db, "")
    return out


def resolve_value_facts(base: DomainPack, factset: FactSet) -> dict[str, ValueFeed]:
    """Map each seed VALUE_FACTS key to the fact slot stating it.

    The substring is located in the policy (it occurs once); the value it ends with is the
    one the key holds; among the facts sourced from that line, the one with a slot of that
    value (for a table row, the one whose conditions name the column of that cell). The
    factor converts the slot's number to the VALUES number (1 mostly; 0.01 for a percent
    stored as a fraction; 60 for hours stored as minutes)."""
    from facts.values import find_values  # noqa: PLC0415

    vf: dict[str, str] = dict(base.code.value_facts)
    values: dict[str, Any] = dict(base.code.values)
    texts = {p: p.read_text(encoding="utf-8") for p in base.policy_files()}
    out: dict[str, ValueFeed] = {}
    for key, sub in vf.items():
        if key not in values:
            continue
        hit = [(p, t.find(sub)) for p, t in texts.items() if sub in t]
        if not hit:
            continue
        p, idx = hit[0]
        t = texts[p]
        line_no = t.count("\n", 0, idx) + 1
        line_start = t.rfind("\n", 0, idx) + 1
        found = find_values(sub)
        if not found:
            continue
        typ, v, vmax, unit, _, _ = found[-1]
        cands: list[tuple[Fact, Slot]] = []
        for f in factset.facts:
            if not (f.source.start_line <= line_no <= f.source.end_line):
                continue
            if Path(f.source.file).name != p.name and not str(p).endswith(f.source.file):
                continue
            for s in f.slots:
                if s.key() == value_key(typ, v, vmax, unit):
                    cands.append((f, s))
        if len(cands) > 1:
            cands = _by_column(cands, t, line_start, idx + len(sub)) or cands
        if not cands:
            continue
        f, s = cands[0]
        feed = _feed(key, values[key], f, s)
        if feed is not None:
            out[key] = feed
    return out


def _by_column(cands: list[tuple[Fact, Slot]], text: str, line_start: int, end: int) -> list[tuple[Fact, Slot]]:
    """For a markdown table row: keep the candidates whose conditions name the header of the
    column the substring ends in."""
    line_end = text.find("\n", line_start)
    row = text[line_start:line_end if line_end >= 0 else len(text)]
    if not row.lstrip().startswith("|"):
        return []
    col = text[line_start:end].count("|") - 1
    lines = text[:line_start].splitlines()
    header = None
    for prev in reversed(lines):
        if not prev.lstrip().startswith("|"):
            break
        if not re.fullmatch(r"\s*\|?[\s:|-]+\|?\s*", prev):
            header = prev
    if header is None:
        return []
    cells = [c.strip() for c in header.strip().strip("|").split("|")]
    if not (0 <= col < len(cells)):
        return []
    name = re.sub(r"[*_`]", "", cells[col]).strip().lower()
    keep = [(f, s) for f, s in cands if any(c.value.lower() == name or name in c.value.lower()
                                           for c in f.conditions)]
    return keep


def _feed(key: str, base_value: Any, f: Fact, s: Slot) -> Optional[ValueFeed]:
    if isinstance(base_value, bool) or not isinstance(base_value, (int, float)):
        return None
    comps = [c for c in ("value", "value_max") if _slot_number(s, c) is not None]
    for c in comps:
        if abs(_slot_number(s, c) - base_value) < 1e-9:
            return ValueFeed(key, f.id, s.name, c, 1.0)
    for c in comps:
        n = _slot_number(s, c)
        if n:
            return ValueFeed(key, f.id, s.name, c, base_value / n)
    return None


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
        line = _toml_line(text, loc) if path.suffix == ".toml" else _yaml_line(text, loc)
        raise FactforgeError(f"{entry}: {err['msg']}", path, line) from None
    vs = VariantSpec(base, path, text, data, spec)
    vs.validate(base)
    return vs


def load_variant(base: DomainPack, name: str) -> VariantSpec:
    """The variant `name` of `base`, validated up front against the base facts."""
    return parse_variant(base, variant_path(base, name))
