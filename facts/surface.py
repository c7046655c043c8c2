"""Numbers in words and the alternative surface forms of a typed value.

Used in both directions: writers pick a surface form for a slot ("$75", "75 dollars",
"seventy-five dollars"), and recoverability matching normalises whatever form a file
shows back to the slot's value.
"""
from __future__ import annotations

import re

from .models import Slot, SlotType

_ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen"]
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_SCALES = [(10**9, "billion"), (10**6, "million"), (1000, "thousand"), (100, "hundred")]

WORD_VALUES: dict[str, int] = {w: i for i, w in enumerate(_ONES)}
WORD_VALUES.update({w: 10 * i for i, w in enumerate(_TENS) if w})
SCALE_VALUES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}


def int_to_words(n: int, hyphen: str = "-") -> str:
    if n < 0:
        return "minus " + int_to_words(-n, hyphen)
    if n < 20:
        return _ONES[n]
    if n < 100:
        t, o = divmod(n, 10)
        return _TENS[t] + (hyphen + _ONES[o] if o else "")
    for scale, name in _SCALES:
        if n >= scale:
            hi, lo = divmod(n, scale)
            rest = (" " + int_to_words(lo, hyphen)) if lo else ""
            return f"{int_to_words(hi, hyphen)} {name}{rest}"
    raise AssertionError(n)


_WORD_RE = re.compile(r"[a-z]+")


def words_to_int(text: str) -> int | None:
    """'seventy-five' -> 75, 'one hundred and twenty' -> 120, 'a' -> None."""
    toks = [t for t in _WORD_RE.findall(text.lower().replace("-", " ")) if t != "and"]
    if not toks:
        return None
    total, cur, seen = 0, 0, False
    for t in toks:
        if t in WORD_VALUES:
            cur += WORD_VALUES[t]
            seen = True
        elif t == "hundred":
            cur = max(cur, 1) * 100
            seen = True
        elif t in SCALE_VALUES:
            total += max(cur, 1) * SCALE_VALUES[t]
            cur = 0
            seen = True
        else:
            return None
    return total + cur if seen else None


def fmt_num(v: float | int) -> str:
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, int):
        return f"{v:,}"
    return f"{v:,.2f}".rstrip("0").rstrip(".") if abs(v - round(v, 2)) < 1e-9 else str(v)


_CURRENCY_SYMBOL = {"USD": "$", "EUR": "€", "GBP": "£", "CAD": "$", "AUD": "$"}
_CURRENCY_WORD = {"USD": "dollars", "EUR": "euros", "GBP": "pounds", "CAD": "dollars", "AUD": "dollars"}
_SIZE_WORD = {"KB": "kilobyte", "MB": "megabyte", "GB": "gigabyte", "TB": "terabyte"}
FREQUENCY_WORDS = {"once": 1, "twice": 2, "thrice": 3, "one-time": 1, "one-off": 1}
FREQUENCY_NAMES = {1: "once", 2: "twice"}
_UNIT_WORD = {"second": "seconds", "minute": "minutes", "hour": "hours", "day": "days", "business_day": "business days",
              "week": "weeks", "month": "months", "year": "years", "calendar_day": "calendar days"}


def unit_words(unit: str | None, n: float | int | None = 2) -> str:
    if not unit:
        return ""
    w = _UNIT_WORD.get(unit, unit.replace("_", " "))
    if n == 1 and w.endswith("s"):
        w = w[:-1]
    return w


def _is_int(v) -> bool:
    return isinstance(v, int) or (isinstance(v, float) and v.is_integer())


def surface_forms(slot: Slot) -> list[str]:
    """Equivalent ways to write the slot's value; the first is the policy's own text.

    Only forms that a matcher normalises back to the same value are listed."""
    forms = [slot.text]
    v, vmax = slot.value, slot.value_max
    if slot.type == SlotType.money and isinstance(v, (int, float)):
        sym = _CURRENCY_SYMBOL.get(slot.unit or "USD", "")
        word = _CURRENCY_WORD.get(slot.unit or "USD", slot.unit or "")
        if v == 1 and word.endswith("s"):  # "1 dollar", "one dollar"
            word = word[:-1]
        forms += [f"{sym}{fmt_num(v)}", f"{fmt_num(v)} {word}"]
        if _is_int(v) and v < 10000:
            forms.append(f"{int_to_words(int(v))} {word}")
        if _is_int(v):
            forms.append(f"{sym}{int(v)}.00")
    elif slot.type == SlotType.percent and isinstance(v, (int, float)) and vmax is not None:
        forms += [f"{fmt_num(v)}-{fmt_num(vmax)}%", f"{fmt_num(v)} to {fmt_num(vmax)} percent"]
    elif slot.type == SlotType.percent and isinstance(v, (int, float)):
        forms += [f"{fmt_num(v)}%", f"{fmt_num(v)} percent"]
        if _is_int(v) and v < 1000:
            forms.append(f"{int_to_words(int(v))} percent")
    elif slot.type == SlotType.duration and isinstance(v, (int, float)):
        uw = unit_words(slot.unit, v if vmax is None else 2)
        if vmax is None:
            forms.append(f"{fmt_num(v)} {uw}")
            if _is_int(v) and v < 1000:
                forms.append(f"{int_to_words(int(v))} {uw}")
        else:
            forms.append(f"{fmt_num(v)} to {fmt_num(vmax)} {uw}")
            if _is_int(v) and _is_int(vmax):
                forms.append(f"{int_to_words(int(v))} to {int_to_words(int(vmax))} {uw}")
    elif slot.type == SlotType.count and slot.unit == "time" and _is_int(v):
        n = int(v)
        forms += ([FREQUENCY_NAMES[n]] if n in FREQUENCY_NAMES else []) + [
            f"{int_to_words(n)} time{'' if n == 1 else 's'}", f"{n} time{'' if n == 1 else 's'}"]
    elif slot.type == SlotType.count and isinstance(v, (int, float)) and slot.unit:
        forms.append(f"{fmt_num(v)}{slot.unit}")
        if slot.unit != "G":  # "3G" is always written glued ("3 g" would be grams)
            forms.append(f"{fmt_num(v)} {slot.unit}")
        if slot.unit in _SIZE_WORD and _is_int(v) and v < 1000:
            forms.append(f"{int_to_words(int(v))} {_SIZE_WORD[slot.unit]}{'' if v == 1 else 's'}")
    elif slot.type == SlotType.count and slot.text.lower().endswith(" single"):
        forms += ["one", "1"]
    elif slot.type == SlotType.count and isinstance(v, (int, float)):
        if vmax is None:
            forms.append(fmt_num(v))
            if _is_int(v) and v < 1000:
                forms.append(int_to_words(int(v)))
        else:
            forms.append(f"{fmt_num(v)} to {fmt_num(vmax)}")
    seen, out = set(), []
    for f in forms:
        if f and f not in seen:
            seen.add(f)
            out.append(f)
    return out


def spoken_form(slot: Slot) -> str:
    """How a voice would say it (for text-to-speech and speech-recognition grammars)."""
    forms = surface_forms(slot)
    for f in forms:
        if not re.search(r"\d", f):
            return f.replace("-", " ")
    return forms[0]
