"""The fact model: strict, schema-versioned pydantic models shared by every other package.

A `Fact` is one checkable statement of a policy. Its id is a content hash of the fact's
*template* (domain, section path, statement with its values masked, conditions), so it
survives unrelated edits of the policy (lines moving, other sections changing) and even a
change of the fact's own value (a fee going from $75 to $90 is the same fact with a new
value); audit history and incremental builds rely on that.
"""
from __future__ import annotations

import re
from enum import Enum
from functools import lru_cache
from typing import Any, Literal, Optional, Union

from pydantic import Field, field_validator

from .hashing import content_hash
from .strict import StrictModel

FACT_SCHEMA_VERSION = "1.0"


class SlotType(str, Enum):
    money = "money"
    duration = "duration"
    count = "count"
    percent = "percent"
    date = "date"
    enum = "enum"
    identifier = "identifier"


class FactKind(str, Enum):
    value = "value"
    rule = "rule"
    eligibility = "eligibility"
    procedure_step = "procedure_step"
    prohibition = "prohibition"
    definition = "definition"


class Slot(StrictModel):
    """A typed value inside a fact's statement.

    `text` is the surface form as written in the policy ("$75", "5 to 7 business days").
    `value` is the normalised value: a number for money/count/percent, a number of `unit`s
    for durations (a range is `value`..`value_max`), ISO date for dates, a lower-cased
    string for enums and identifiers. `unit` is the currency code for money and the
    duration unit ("minute", "hour", "day", "business_day", "week", "month", "year").
    """

    name: str
    type: SlotType
    text: str
    value: Union[float, int, str]
    value_max: Optional[Union[float, int]] = None
    unit: Optional[str] = None
    qualifier: Optional[Literal["at_most", "at_least", "exactly", "up_to", "more_than", "less_than"]] = None

    def key(self) -> tuple:
        """The slot's value in comparable form (see `value_key`): two slots state the same
        value exactly when their keys are equal."""
        return value_key(self.type, self.value, self.value_max, self.unit)

    def display(self) -> str:
        """Readable normalised form for listings: '75 USD', '24 hour', '20 %', '2..4'."""
        v = _fmt_num(self.value)
        if self.value_max is not None:
            v = f"{v}..{_fmt_num(self.value_max)}"
        return f"{v} {self.unit}".strip() if self.unit else v


def _fmt_num(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


# Durations that convert exactly into one another (in minutes). Business days, months and
# years do not convert into calendar time, so they only equal themselves.
DURATION_MINUTES = {"second": 1 / 60, "minute": 1, "hour": 60, "day": 1440, "calendar_day": 1440, "week": 10080}
NUMERIC_TYPES = (SlotType.money, SlotType.duration, SlotType.count, SlotType.percent)


def _value_key(typ: SlotType, value: Any, value_max: Any = None, unit: Optional[str] = None) -> tuple:
    """`value_key`, computed."""
    typ = SlotType(typ)
    if typ in NUMERIC_TYPES:
        try:
            v = float(value)
            vm = float(value_max) if value_max is not None else None
        except (TypeError, ValueError):
            return (typ.value, str(value).lower(), None, None)
        u: Optional[str] = None
        if typ == SlotType.money:
            u = (unit or "USD").upper()
        elif typ == SlotType.duration:
            u = unit
            if unit in DURATION_MINUTES:
                f = DURATION_MINUTES[unit]
                v, vm, u = v * f, (vm * f if vm is not None else None), "minute"
        elif typ == SlotType.count and unit:
            u = unit
        return (typ.value, _num_key(v), None if vm is None else _num_key(vm), u)
    return (typ.value, " ".join(str(value).lower().split()), None, None)


@lru_cache(maxsize=65536, typed=True)
def _value_key_cached(typ: SlotType, value: Any, value_max: Any, unit: Optional[str]) -> tuple:
    return _value_key(typ, value, value_max, unit)


def value_key(typ: SlotType, value: Any, value_max: Any = None, unit: Optional[str] = None) -> tuple:
    """The one definition of value equality, used by the decomposer, writers, planner,
    variants and audits alike.

    - money: amount and currency ("$75" == "75 dollars" == "USD 75.00"; $75 != EUR 75);
    - durations: minutes, hours, days, calendar days and weeks in minutes ("24 hours" ==
      "1 day", "2 weeks" == "14 days"); business days, months and years only equal
      themselves;
    - counts: the number, with a measurement unit when there is one ("2GB" == "2 GB",
      "2GB" != "2 bags" == "two"); percents: the number;
    - dates, enums and identifiers: their lower-cased text.
    Numbers compare after rounding to 9 decimals, so 75 == 75.0. Memoised (graders compare
    the same values many times over)."""
    try:
        return _value_key_cached(typ, value, value_max, unit)
    except TypeError:                       # an unhashable value
        return _value_key(typ, value, value_max, unit)


def _num_key(v: float) -> float | int:
    r = round(v, 9)
    return int(r) if r.is_integer() else r


def in_unit(value: float, unit: Optional[str], target: Optional[str]) -> Optional[float]:
    """A duration `value` in `unit` expressed in `target` (None when they do not convert)."""
    if unit == target:
        return value
    if unit in DURATION_MINUTES and target in DURATION_MINUTES:
        return value * DURATION_MINUTES[unit] / DURATION_MINUTES[target]
    return None


class Condition(StrictModel):
    attribute: str  # e.g. "membership tier", "cabin", "product"
    value: str      # e.g. "gold", "business", "Everyday Checking"


class SourceSpan(StrictModel):
    file: str
    start_line: int = Field(ge=1)
    end_line: int = Field(ge=1)

    @field_validator("end_line")
    @classmethod
    def _order(cls, v: int, info: Any) -> int:
        start = info.data.get("start_line")
        if start is not None and v < start:
            raise ValueError("end_line before start_line")
        return v


_SLUG = re.compile(r"[^a-z0-9]+")


def slugify(text: str, max_len: int = 32) -> str:
    return _SLUG.sub("-", text.lower()).strip("-")[:max_len].strip("-") or "x"


def replace_value(text: str, old: str, new: str, count: int = 1) -> str:
    """Replace a value's surface form as a whole token ("one" never inside "someone")."""
    pat = (r"(?<![\w$€£])" if old[:1].isalnum() or old[:1] in "$€£" else "") + re.escape(old) + \
          (r"(?![\w%])" if old[-1:].isalnum() else "")
    return re.sub(pat, lambda m: new, text, count=count)


class Fact(StrictModel):
    schema_version: str = FACT_SCHEMA_VERSION
    id: str
    domain: str
    section: list[str]
    kind: FactKind
    statement: str
    slots: list[Slot] = Field(default_factory=list)
    conditions: list[Condition] = Field(default_factory=list)
    source: SourceSpan
    depends_on: list[str] = Field(default_factory=list)
    anchors: list[str] = Field(default_factory=list)  # key terms that identify the fact in text

    def template(self) -> str:
        """Statement with every slot surface masked by its type: the identity of the rule."""
        t = self.statement
        for s in sorted(self.slots, key=lambda s: -len(s.text)):
            if s.text:
                t = replace_value(t, s.text, "{" + s.type.value + "}", count=0)
        return t


def make_fact_id(domain: str, section: list[str], template: str, conditions: list[Condition],
                 occurrence: int = 0) -> str:
    """Stable id: domain, section slug and a hash of the masked template and conditions."""
    payload = {
        "domain": domain,
        "section": [s.lower() for s in section],
        "template": " ".join(template.lower().split()),
        "conditions": sorted((c.attribute.lower(), c.value.lower()) for c in conditions),
        "occurrence": occurrence,
    }
    sec = slugify(section[-1] if section else "root", 24)
    return f"{domain}.{sec}.{content_hash(payload)[:10]}"


class UnparsedLine(StrictModel):
    """A policy line the decomposer could not turn into a fact, with the reason: reported,
    never silently dropped."""

    file: str
    line: int
    text: str
    reason: str


class FactSet(StrictModel):
    schema_version: str = FACT_SCHEMA_VERSION
    domain: str
    source_file: str
    facts: list[Fact]
    unparsed: list[UnparsedLine] = Field(default_factory=list)
    decomposer: str = "builtin"

    @property
    def hash(self) -> str:
        return content_hash({"schema_version": self.schema_version, "domain": self.domain,
                             "facts": [f.model_dump(mode="json") for f in self.facts]})

    def by_id(self) -> dict[str, Fact]:
        return {f.id: f for f in self.facts}

    def get(self, fact_id: str) -> Fact:
        for f in self.facts:
            if f.id == fact_id:
                return f
        raise KeyError(fact_id)
