"""Which fact slot states each seed value (`VALUE_FACTS`), and how a slot is re-valued.

`resolve_value_facts(base, factset)` maps a pack's `VALUES` keys to the fact slots that
state them (a `ValueFeed`: VALUES[key] = slot component * factor); a variant that changes
a fact's value changes the seed value with it, and a variant that overrides a seed value
rewrites the fact (`restyle_slot` writes the new number in the slot's own style)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Optional, Union

from facts.models import NUMERIC_TYPES, Fact, FactSet, Slot, SlotType, in_unit, value_key
from facts.surface import fmt_num, int_to_words, unit_words
from facts.values import find_values, parse_slots

from .safe_expr import tidy_number

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


def slot_number(slot: Slot, component: str) -> Optional[float]:
    v = slot.value if component == "value" else slot.value_max
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def slot_in_unit(slot: Slot, component: str, unit: Optional[str]) -> Optional[float]:
    """The slot's value expressed in `unit` (durations convert between minutes..weeks)."""
    v = slot_number(slot, component)
    if v is None:
        return None
    if slot.type != SlotType.duration:
        return v
    return in_unit(v, slot.unit, unit)


def numeric_slots(f: Fact) -> list[Slot]:
    return [s for s in f.slots if s.type in NUMERIC_TYPES and isinstance(s.value, (int, float))]


def slot_spans(statement: str, slots: list[Slot]) -> dict[str, tuple[int, int]]:
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
    if "." in old:
        out = f"{n:,.{len(old.split('.')[1])}f}"
    elif float(n).is_integer():
        out = f"{int(n):,}"
    else:
        out = f"{n:,.2f}" if money else fmt_num(n)
    plain_big = "," not in old and len(old.split(".")[0]) >= 4
    return out.replace(",", "") if plain_big else out


def restyle_slot(slot: Slot, component: str, n: Union[int, float]) -> Optional[Slot]:
    """The slot with its `component` set to n, written in the slot's own style
    ("$50" -> "$65", "24-hour" -> "48-hour", "25,000" -> "30,000"); None if it cannot be."""
    n = tidy_number(n)
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


PLACEHOLDER = "…"  # in a VALUE_FACTS link: where the value stands in the policy's sentence


def locate_link(link: str, texts: dict[Path, str]) -> Optional[tuple[Path, int, int, tuple]]:
    """Where a VALUE_FACTS link sits in the policy: (file, start of the link, end of the
    value, the value found). A link names its sentence without its number: `…` stands for a
    value, the last one for the value linked ("The late fee is …", "get a … discount", a
    table row "| Kitchen and dining | … | … | …"); without `…` the value is the first after
    the link on its line. The first place in the policy where every `…` is one value (and
    nothing else) is the one. A link that ends with the value itself ("The late fee is $12")
    is read too."""
    if PLACEHOLDER not in link:
        for p, t in texts.items():
            idx = t.find(link)
            if idx < 0:
                continue
            found = find_values(link)
            if found:
                return p, idx, idx + len(link), found[-1]
            line_end = t.find("\n", idx)
            rest_at = idx + len(link)
            found = find_values(t[rest_at:line_end if line_end >= 0 else len(t)])
            return (p, idx, rest_at + found[0][5], found[0]) if found else None
        return None
    parts = link.split(PLACEHOLDER)
    for p, t in texts.items():
        at = 0
        for line in t.splitlines(keepends=True):
            hit = _match_parts(line, parts)
            if hit is not None:
                start, end, value = hit
                return p, at + start, at + end, value
            at += len(line)
    return None


def link_places(link: str, texts: dict[Path, str]) -> int:
    """How many lines of the policy a placeholder link fits (a link is unambiguous at 1)."""
    parts = link.split(PLACEHOLDER)
    return sum(_match_parts(line, parts) is not None for t in texts.values() for line in t.splitlines())


def _match_parts(line: str, parts: list[str]) -> Optional[tuple[int, int, tuple]]:
    """The first place in `line` where `parts` joined by values stand: (start, end of the last
    value, the last value)."""
    values = find_values(line)
    starts = {v[4]: v for v in values}
    for first in values:
        if not line[:first[4]].endswith(parts[0]):
            continue
        v, ok = first, True
        for part in parts[1:-1]:
            if not line.startswith(part, v[5]) or (v := starts.get(v[5] + len(part))) is None:
                ok = False
                break
        if ok and line.startswith(parts[-1], v[5]):
            return first[4] - len(parts[0]), v[5], v
    return None


def resolve_value_facts(base: Any, factset: FactSet) -> dict[str, ValueFeed]:
    """Map each seed VALUE_FACTS key of the pack `base` (a `domains.pack.DomainPack`) to the
    fact slot stating it.

    The link is located in the policy (`locate_link`; its first occurrence); the value
    there is the one the key holds; among the facts sourced from that line, the one with a
    slot of that value (for a table row, the one whose conditions name the column of that
    cell). The factor converts the slot's number to the VALUES number (1 mostly; 0.01 for a
    percent stored as a fraction; 60 for hours stored as minutes)."""
    vf: dict[str, str] = dict(base.code.value_facts)
    values: dict[str, Any] = dict(base.code.values)
    texts = {p: p.read_text(encoding="utf-8") for p in base.policy_files()}
    out: dict[str, ValueFeed] = {}
    for key, link in vf.items():
        if key not in values:
            continue
        where = locate_link(link, texts)
        if where is None:
            continue
        p, idx, end, (typ, v, vmax, unit, _, _) = where
        t = texts[p]
        line_no = t.count("\n", 0, idx) + 1
        line_start = t.rfind("\n", 0, idx) + 1
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
            cands = _by_column(cands, t, line_start, end) or cands
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
    comps = [c for c in ("value", "value_max") if slot_number(s, c) is not None]
    for c in comps:
        if abs(slot_number(s, c) - base_value) < 1e-9:
            return ValueFeed(key, f.id, s.name, c, 1.0)
    for c in comps:
        n = slot_number(s, c)
        if n:
            return ValueFeed(key, f.id, s.name, c, base_value / n)
    return None
