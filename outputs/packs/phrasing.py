"""Response phrasing rules: declarative, checked mechanically on the agent's messages.

The catalog (`phrasing.toml`, versioned, pinned by sha256 in each pack) defines rules by id;
a task names the rules in force. Kinds:

- `greeting` / `closing`: the first / last agent message contains one of `phrases`
  (case-insensitive; `{company}`, `{short_name}`, `{phone}`, `{website}` filled from the brand);
- `money_format` (`symbol_two_decimals`): every amount is written like `$1,234.50` (a bare
  `$45`, `45 dollars` or `USD 45` is a violation);
- `date_format` (`iso`): every date is written `YYYY-MM-DD` (`3/4/2026`, `March 4, 2026`,
  `4 March 2026` are violations);
- `forbidden`: no agent message matches `pattern` (a case-insensitive regular expression);
- `max_words`: no agent message is longer than `limit` words.

`check(rules, messages, brand)` returns the violations (empty: compliant). `comply(rules,
messages, brand)` rewrites messages so that the rules a writer can satisfy mechanically hold
(greeting, closing, money and date formats): what a reference agent (the oracle) uses.
Pure Python and pydantic: the evaluator imports this module.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal, Mapping, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from facts.errors import FactforgeError
from facts.hashing import sha256_hex

from .spec import read_toml, validation_error

PHRASING_SCHEMA_VERSION = "1.0"
CATALOG_PATH = Path(__file__).resolve().parent / "phrasing.toml"


class _Rule(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    description: str


class PhraseRule(_Rule):
    kind: Literal["greeting", "closing"]
    phrases: list[str] = Field(min_length=1)


class MoneyFormatRule(_Rule):
    kind: Literal["money_format"]
    style: Literal["symbol_two_decimals"]


class DateFormatRule(_Rule):
    kind: Literal["date_format"]
    style: Literal["iso"]


class ForbiddenRule(_Rule):
    kind: Literal["forbidden"]
    pattern: str

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, v: str) -> str:
        try:
            re.compile(v)
        except re.error as e:
            raise ValueError(f"pattern does not compile: {e}") from None
        return v


class MaxWordsRule(_Rule):
    kind: Literal["max_words"]
    limit: int = Field(gt=0)


Rule = Annotated[Union[PhraseRule, MoneyFormatRule, DateFormatRule, ForbiddenRule, MaxWordsRule],
                 Field(discriminator="kind")]


class Catalog(BaseModel):
    model_config = ConfigDict(extra="forbid")
    schema_version: Literal["1.0"] = PHRASING_SCHEMA_VERSION
    version: int = Field(ge=1)
    rules: list[Rule]

    def get(self, rule_id: str) -> Rule:
        for r in self.rules:
            if r.id == rule_id:
                return r
        raise KeyError(rule_id)


class Violation(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rule: str
    message_index: int
    text: str


def load_catalog(path: Optional[Path] = None) -> tuple[Catalog, str]:
    """(catalog, sha256 of the file)."""
    path = Path(path or CATALOG_PATH)
    data, text = read_toml(path)
    try:
        cat = Catalog.model_validate(data)
    except ValidationError as e:
        raise validation_error(e, path, text) from None
    ids = [r.id for r in cat.rules]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise FactforgeError(f"duplicate phrasing rule ids: {', '.join(dup)}", path)
    return cat, sha256_hex(path.read_bytes())


def rules_from_json(data: list[dict]) -> list[Rule]:
    """Rules as stored in a pack (the kit's task.json lists the rules in force in full)."""
    return TypeAdapter(list[Rule]).validate_python(data)


def _fill(phrase: str, brand: Mapping[str, str]) -> str:
    out = phrase
    for k in ("company", "short_name", "phone", "website"):
        out = out.replace("{" + k + "}", brand.get(k) or brand.get("company", ""))
    return out


_MONEY = re.compile(r"(?:(?<![\w$])(?:USD|US\$|\$)\s?\d[\d,]*(?:\.\d+)?)|(?:\b\d[\d,]*(?:\.\d+)?\s?(?:dollars?|USD)\b)",
                    re.IGNORECASE)
_MONEY_OK = re.compile(r"^\$\d{1,3}(?:,\d{3})*\.\d{2}$")
_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december|"
           "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
_DATE_SLASH = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{2,4})\b")
_DATE_MDY = re.compile(rf"\b({_MONTHS})\.? (\d{{1,2}})(?:st|nd|rd|th)?,? (\d{{4}})\b", re.IGNORECASE)
_DATE_DMY = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)? ({_MONTHS})\.?,? (\d{{4}})\b", re.IGNORECASE)
_MONTH_NO = {m: i for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split(), 1)}


def _amount(token: str) -> Optional[float]:
    m = re.search(r"\d[\d,]*(?:\.\d+)?", token)
    return float(m.group(0).replace(",", "")) if m else None


def _money_text(x: float) -> str:
    return f"${x:,.2f}"


def _month(name: str) -> int:
    return _MONTH_NO[name.lower()[:3]]


def _dates(text: str) -> list[tuple[re.Match, str]]:
    """Non-ISO dates in `text` with their ISO form."""
    out = []
    for m in _DATE_SLASH.finditer(text):
        mo, d, y = int(m.group(1)), int(m.group(2)), int(m.group(3))
        y = y + 2000 if y < 100 else y
        out.append((m, f"{y:04d}-{mo:02d}-{d:02d}"))
    for m in _DATE_MDY.finditer(text):
        out.append((m, f"{int(m.group(3)):04d}-{_month(m.group(1)):02d}-{int(m.group(2)):02d}"))
    for m in _DATE_DMY.finditer(text):
        out.append((m, f"{int(m.group(3)):04d}-{_month(m.group(2)):02d}-{int(m.group(1)):02d}"))
    return out


def check(rules: list[Rule], messages: list[str], brand: Mapping[str, str]) -> list[Violation]:
    """Violations of `rules` in the agent's messages (in order; empty list: compliant)."""
    out: list[Violation] = []
    if not messages:
        return [Violation(rule=r.id, message_index=-1, text="no agent message") for r in rules
                if r.kind in ("greeting", "closing")]
    for r in rules:
        if r.kind in ("greeting", "closing"):
            i = 0 if r.kind == "greeting" else len(messages) - 1
            wanted = [_fill(p, brand).casefold() for p in r.phrases]
            if not any(w in messages[i].casefold() for w in wanted):
                out.append(Violation(rule=r.id, message_index=i, text=messages[i][:160]))
            continue
        for i, msg in enumerate(messages):
            out += [Violation(rule=r.id, message_index=i, text=hit)
                    for hit in _hits(r.kind, getattr(r, "pattern", None), getattr(r, "limit", None), msg)]
    return out


@lru_cache(maxsize=4096)
def _hits(kind: str, pattern: Optional[str], limit: Optional[int], msg: str) -> tuple[str, ...]:
    """What breaks a message rule in `msg` (memoised: a reference agent says the same long
    reply to every customer)."""
    if kind == "money_format":
        return tuple(m.group(0) for m in _MONEY.finditer(msg) if not _MONEY_OK.match(m.group(0)))
    if kind == "date_format":
        return tuple(m.group(0) for m, _ in _dates(msg))
    if kind == "forbidden":
        return tuple(m.group(0) for m in re.finditer(pattern, msg, re.IGNORECASE))
    if kind == "max_words" and len(msg.split()) > limit:
        return (f"{len(msg.split())} words",)
    return ()


@lru_cache(maxsize=1024)
def _money_formatted(msg: str) -> str:
    return _MONEY.sub(lambda m: m.group(0) if _MONEY_OK.match(m.group(0)) or _amount(m.group(0)) is None
                      else _money_text(_amount(m.group(0))), msg)


@lru_cache(maxsize=1024)
def _dates_iso(msg: str) -> str:
    for m, iso in sorted(_dates(msg), key=lambda x: -x[0].start()):
        msg = msg[:m.start()] + iso + msg[m.end():]
    return msg


def comply(rules: list[Rule], messages: list[str], brand: Mapping[str, str]) -> list[str]:
    """`messages` rewritten to satisfy the greeting, closing, money and date rules (the
    forbidden and length rules are the writer's to respect; `check` still reports them)."""
    out = list(messages)
    if not out:
        return out
    for r in rules:
        if r.kind == "money_format":
            out = [_money_formatted(msg) for msg in out]
        elif r.kind == "date_format":
            out = [_dates_iso(msg) for msg in out]
    for r in rules:
        if r.kind == "greeting" and not any(_fill(p, brand).casefold() in out[0].casefold() for p in r.phrases):
            out[0] = f"{_fill(r.phrases[0], brand)}. {out[0]}"
        elif r.kind == "closing" and not any(_fill(p, brand).casefold() in out[-1].casefold() for p in r.phrases):
            out[-1] = f"{out[-1]} {_fill(r.phrases[0], brand)}"
    return out
