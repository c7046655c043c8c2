"""Typed values in text: money, durations, counts, percents, dates, identifiers, enums.

Two directions share one scanner (`find_values`):

- policy side, `parse_slots(text)`: the typed values a policy sentence states, as `Slot`s
  (counts only where a number quantifies a noun or carries a qualifier, so list markers,
  section numbers, years inside dates and digits inside identifiers are not values);
- evidence side, `find_values(text)` / `slot_matches(slot, text)`: every value written in
  arbitrary extracted text (OCR and speech-recognition output too), normalised so that
  "$75", "75 dollars", "seventy-five dollars" and "$75.00" compare equal.

Every form `facts.surface.surface_forms(slot)` lists normalises back to the slot's
(type, value, value_max, unit); the tests check that round trip.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple, Optional, Union

from .models import NUMERIC_TYPES, Slot, SlotType, value_key
from .surface import FREQUENCY_WORDS, WORD_VALUES, words_to_int

Number = Union[int, float]
Found = tuple  # (SlotType, value, value_max, unit, start, end)

# --- number words ---------------------------------------------------------------------------
_ONES = "one|two|three|four|five|six|seven|eight|nine"
_TEENS = "ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
_TENS = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
_B100 = rf"(?:(?:{_TENS})(?:[\s-](?:{_ONES})\b)?|(?:{_TEENS})|(?:{_ONES})|zero)"
_B1000 = rf"(?:(?:{_ONES})\s+hundred(?:\s+(?:and\s+)?{_B100})?|{_B100})"
NUMW = (rf"\b{_B1000}(?:\s+(?:thousand|million|billion)(?:\s+(?:and\s+)?{_B1000}\b)?)*\b"
        rf"(?:\s+point(?:\s+(?:zero|{_ONES})\b)+)?")
NUMD = r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
NUM = rf"(?:{NUMD}|{NUMW})"

_MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"], 1)}
_MONTHS.update({k[:3]: v for k, v in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_MONTH_RE = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?"
             r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")

_CODES = "USD|EUR|GBP|CAD|AUD"

_SCAN = re.compile(
    "|".join([
        r"(?P<iso>\b\d{4}-\d{2}-\d{2}\b)",
        rf"(?P<mdy>\b{_MONTH_RE}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b)",
        rf"(?P<dmy>\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH_RE}\.?,?\s+\d{{4}}\b)",
        r"(?P<slash>\b\d{1,2}/\d{1,2}/\d{4}\b)",
        r"(?P<time>\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]\.?m\b\.?)?|\b\d{1,2}\s?[ap]\.?m\b\.?)",
        r"(?P<phone>\b\d{1,3}-\d{3}-\d{3}-\d{4}\b|\(\d{3}\)\s?\d{3}-\d{4}\b|\b\d{3}-\d{3}-\d{4}\b)",
        r"(?P<hashid>#[A-Za-z0-9]*\d[A-Za-z0-9_-]*)",
        r"(?P<code>\b(?=[A-Za-z][\w-]*\d)[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)+\b"
        r"|\b[A-Za-z]{1,4}\d{3,}[A-Za-z0-9]*\b)",
        rf"(?P<msym>(?:US\$|C\$|A\$|[$€£])\s?{NUMD}(?:\s?(?:thousand|million|billion|k|m|bn)\b)?)",
        rf"(?P<mcode>\b(?:{_CODES})\s?{NUM})",
        r"(?P<freq>\b(?:once|twice|thrice|one-time|one-off)\b)",
        r"(?P<single>\b(?:a|one)\s+single\b)",
        rf"(?P<num>{NUMD}|(?=[zotfsen]){NUMW})",
    ]),
    re.IGNORECASE,
)
# What may follow a number (tried at the number's end, in this order).
# a range's dash: a hyphen or an en dash, spaced or not, or an unspaced em dash ("10—20"); a
# spaced em dash sets words apart ("Tier 2 — 3 bags"), and it is what OCR reads for a minus
# sign ("(1 − 1.25%)" read "(1 — 1.25%)" was the range 1 to 1.25%)
_RANGE = re.compile(rf"(?:\s*(?:-|–|to)\s*|—)({NUMD}|{NUMW})", re.IGNORECASE)
_SUFFIX = re.compile(
    "|".join([
        r"(?P<pct>\s?(?:%|percent\b|per\s?cent\b|pct\b))",
        rf"(?P<mpost>\s?(?:{_CODES})\b)",
        r"(?P<mword>(?:\s(?:thousand|million|billion))?[\s-](?:dollars?|euros?|pounds?|bucks)\b)",
        r"(?P<cents>\s?(?:cents?\b|¢))",
        r"(?P<times>\s+times?\b)",
        r"(?P<rate>\s?(?:[KMGkmg]bps)\b)",
        r"(?P<size>\s?(?:[KMGT]B|[kmgt]b|(?:kilo|mega|giga|tera)bytes?|gigs?)\b)",
        r"(?P<gen>[Gg]\b)",
        r"(?P<age>(?:\s|-)years?(?:\s|-)old\b|\s+years\s+of\s+age\b)",
        r"(?P<dur>(?:\s|-)?(?:(?P<dq>business|working|banking|calendar)(?:\s|-))?"
        r"(?P<du>second|sec|minute|min|hour|hr|day|week|wk|month|mo|year|yr)s?(?:\(s\))?\b)",
        r"(?P<plus>\+)",
    ]),
    re.IGNORECASE,
)
_AND_CENTS = re.compile(rf"\s+(?:and\s+)?({NUMD}|{NUMW})\s+cents?\b", re.IGNORECASE)
_COUNT_END = re.compile(r"[\w%$]|\.\d")
_UNIT_MAP = {"second": "second", "sec": "second", "minute": "minute", "min": "minute", "hour": "hour", "hr": "hour", "day": "day",
             "week": "week", "wk": "week", "month": "month", "mo": "month", "year": "year", "yr": "year"}
_SIZE_UNITS = {"k": "KB", "m": "MB", "g": "GB", "t": "TB"}
_RATE_UNITS = {"k": "kbps", "m": "Mbps", "g": "Gbps"}
_FREQ = FREQUENCY_WORDS
# "one-time" before a credential names a kind of code ("a one-time code sent to the phone"),
# not how often something happens.
_SINGLE_USE_TERM = re.compile(r"\s+(?:pass)?(?:code|password|passcode|pin|token|link|key)s?\b", re.IGNORECASE)
# "once" is a count only where it quantifies ("called once", "once per order", "only once"),
# never as the conjunction that opens a clause ("Once the user is verified, ...").
_TIME_NOUN = r"(?:day|week|month|year|quarter|cycle|billing\s+cycle|lifetime|period|season|calendar\s+year|trip)"
_ONCE_AFTER = re.compile(rf"\s*(?:[,.;:!?)|\n]|$|(?:per|every|each|more|only|again|within|during|and|or|in\s+(?:a|any|each|every)"
                         rf"|(?:a|an)\s+{_TIME_NOUN})\b)", re.IGNORECASE)
_ONCE_BEFORE = re.compile(r"\b(?:only|just|at\s+most|at\s+least|exactly|more\s+than|than|is|are|was|be|been)\s+$",
                          re.IGNORECASE)
# "a single" quantifies where something is provided, chosen or used ("provide a single gift card");
# elsewhere it is emphasis ("a single reservation may hold ...").
_SINGLE_BEFORE = re.compile(r"\b(?:provide|provides|choose|chooses|use|uses|select|selects|pick|designate|pay\s+with|"
                            r"only|accept|accepts|allow|allows)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)
_SCORE_BEFORE = re.compile(r"\bscores?\b[^.;!?\n$]{0,30}$", re.IGNORECASE)
_CLOCK_AFTER = re.compile(r"[\s-]*(?:based|clock|format|time\s+format)\b", re.IGNORECASE)
_SCALE = {"thousand": 1000, "k": 1000, "million": 10**6, "m": 10**6, "billion": 10**9, "bn": 10**9}
_DOLLAR_CURRENCIES = {"USD", "CAD", "AUD"}
_MONEY_PREFIX = re.compile(r"^(?:US\$|C\$|A\$|[$€£])\s?|^(?:USD|EUR|GBP|CAD|AUD)\s?", re.IGNORECASE)
_MONEY_SCALE = re.compile(r"\s?(thousand|million|billion|k|m|bn)$", re.IGNORECASE)


def _num(s: str) -> Optional[Number]:
    """'1,250.00' -> 1250, '1.5' -> 1.5, 'seventy-five' -> 75."""
    s = s.strip()
    if not s:
        return None
    if s[0].isdigit():
        v = float(s.replace(",", ""))
        return int(v) if v.is_integer() else v
    if " point " in s.lower():
        whole, frac = re.split(r"\s+point\s+", s.lower(), maxsplit=1)
        w = words_to_int(whole)
        digits = [WORD_VALUES.get(t) for t in frac.split()]
        if w is None or any(d is None or d > 9 for d in digits):
            return None
        return round(w + float("0." + "".join(str(d) for d in digits)), 10)
    return words_to_int(s)


def _norm(v: float) -> Number:
    if isinstance(v, float):
        return int(v) if v.is_integer() else round(v, 10)
    return v


def _dollar(currency: str) -> str:
    return currency if currency in _DOLLAR_CURRENCIES else "USD"


def _money_unit(text: str, currency: str) -> str:
    t = text.lower()
    if "€" in t or "euro" in t or "eur" in t:
        return "EUR"
    if "£" in t or "pound" in t or "gbp" in t:
        return "GBP"
    for code in ("usd", "cad", "aud"):
        if code in t:
            return code.upper()
    if t.startswith("c$"):
        return "CAD"
    if t.startswith("a$"):
        return "AUD"
    if t.startswith("us$"):
        return "USD"
    return _dollar(currency)


def _date_iso(kind: str, text: str) -> Optional[str]:
    t = text.lower().replace(",", " ").replace(".", " ")
    try:
        if kind == "iso":
            y, m, d = (int(x) for x in text.split("-"))
        elif kind == "slash":
            m, d, y = (int(x) for x in text.split("/"))
        else:
            parts = t.split()
            mon = next(p for p in parts if not p[0].isdigit())
            nums = [int(re.sub(r"\D", "", p)) for p in parts if p[0].isdigit()]
            m = _MONTHS.get(mon, _MONTHS.get(mon[:3], 0))
            d, y = (nums[0], nums[1]) if nums[0] < 100 else (nums[1], nums[0])
    except (ValueError, StopIteration, IndexError):
        return None
    if not (1 <= m <= 12 and 1 <= d <= 31):
        return None
    return f"{y:04d}-{m:02d}-{d:02d}"


_ONE_EXCLUDE_AFTER = re.compile(r"\s*(?:-|of\b|another\b|way\b|or\s+the\s+other\b)", re.IGNORECASE)
_ONE_EXCLUDE_BEFORE = re.compile(r"(?:\bno|\bany|\bevery|\bsome|\bthe|\bthis|\bthat|\bwhich)\s+$", re.IGNORECASE)


def _number_led(m: re.Match, text: str, currency: str) -> tuple[Optional[Found], int]:
    """A value starting with a number: range, then unit/currency/percent suffix, else a count."""
    a, end = m.span()
    v = _num(m.group(0))
    if v is None:
        return None, end
    vmax = None
    r = _RANGE.match(text, end)
    if r:
        v2 = _num(r.group(1))
        sfx = _SUFFIX.match(text, r.end())
        if v2 is not None and ((sfx and sfx.lastgroup in ("pct", "dur")) or not _COUNT_END.match(text, r.end())):
            vmax, end = v2, r.end()
    sfx = _SUFFIX.match(text, end)
    kind = sfx.lastgroup if sfx else None
    if kind in ("mpost", "mword", "cents", "age", "plus") and vmax is not None:
        # "2-5 dollars": a range only for percents and durations; keep the first number.
        vmax, end = None, m.end()
        sfx = _SUFFIX.match(text, end)
        kind = sfx.lastgroup if sfx else None
    if kind == "pct":
        return (SlotType.percent, v, vmax, "%", a, sfx.end()), sfx.end()
    if kind == "times" and vmax is None:
        return (SlotType.count, v, None, "time", a, sfx.end()), sfx.end()  # a frequency: "2 times" == "twice"
    if kind in ("size", "gen", "rate") and vmax is None:
        letter = sfx.group(0).strip()[0].lower()
        unit = "G" if kind == "gen" else _SIZE_UNITS[letter] if kind == "size" else _RATE_UNITS[letter]
        return (SlotType.count, v, None, unit, a, sfx.end()), sfx.end()
    if kind == "dur":
        base = _UNIT_MAP[sfx.group("du").lower()]
        if base == "hour" and v in (12, 24) and vmax is None and _CLOCK_AFTER.match(text, sfx.end()):
            return None, sfx.end()  # "24 hour based", "24-hour clock": a clock convention, not a duration
        q = (sfx.group("dq") or "").lower()
        unit = ("business_day" if q in ("business", "working", "banking") else
                "calendar_day" if q == "calendar" else base) if base == "day" else base
        return (SlotType.duration, v, vmax, unit, a, sfx.end()), sfx.end()
    if kind in ("mpost", "mword"):
        scale = re.match(r"\s(thousand|million|billion)", sfx.group(0), re.IGNORECASE) if kind == "mword" else None
        if scale and m.group(0)[:1].isdigit():
            v = v * _SCALE[scale.group(1).lower()]
        stop = sfx.end()
        cents = _AND_CENTS.match(text, stop) if kind == "mword" else None
        if cents:
            c = _num(cents.group(1))
            if c is not None and c < 100:
                v, stop = v + c / 100, cents.end()
        return (SlotType.money, _norm(v), None, _money_unit(sfx.group(0), currency), a, stop), stop
    if kind == "cents":
        return (SlotType.money, _norm(v / 100), None, _dollar(currency), a, sfx.end()), sfx.end()
    if kind == "age":
        return (SlotType.count, v, None, None, a, m.end()), sfx.end()
    if kind == "plus":
        return (SlotType.count, v, None, None, a, sfx.end()), sfx.end()
    if vmax is not None:
        return (SlotType.count, v, vmax, None, a, end), end
    if _COUNT_END.match(text, end):
        return None, end  # glued to letters: "2nd", "4x", "10am"
    word = m.group(0)
    if word.lower() == "one" and (_ONE_EXCLUDE_AFTER.match(text, end) or
                                   _ONE_EXCLUDE_BEFORE.search(text, max(0, a - 12), a)):
        return None, end
    return (SlotType.count, v, None, None, a, end), end


def _classify(m: re.Match, text: str, currency: str) -> tuple[Optional[Found], int]:
    kind = m.lastgroup
    s = m.group(0)
    a, b = m.span()
    if kind == "num":
        return _number_led(m, text, currency)
    if kind in ("iso", "mdy", "dmy", "slash"):
        iso = _date_iso(kind if kind in ("iso", "slash") else "words", s)
        return ((SlotType.date, iso, None, None, a, b) if iso else None), b
    if kind == "time":
        return None, b
    if kind == "freq":
        w = s.lower()
        if w == "once" and (not text[:a].strip() or re.search(r"\bat\s+$", text[max(0, a - 4):a], re.IGNORECASE)
                            or not (_ONCE_BEFORE.search(text, max(0, a - 20), a) or _ONCE_AFTER.match(text, b))):
            return None, b  # "Once the user ...", "at once", "once it is sent": not a count
        if w in ("one-time", "one-off") and _SINGLE_USE_TERM.match(text, b):
            return None, b  # "a one-time code", "one-time password": a kind of credential, not a frequency
        return (SlotType.count, _FREQ.get(w, 1), None, "time", a, b), b
    if kind == "single":
        if not re.match(r"\s+[A-Za-z]", text[b:b + 3]) or not _SINGLE_BEFORE.search(text, max(0, a - 40), a):
            return None, b
        return (SlotType.count, 1, None, None, a, b), b
    if kind in ("phone", "hashid", "code"):
        return (SlotType.identifier, s.lower(), None, None, a, b), b
    body = _MONEY_PREFIX.sub("", s)
    sc = _MONEY_SCALE.search(body) if kind == "msym" else None
    v = _num(body[:sc.start()] if sc else body)
    if v is None:
        return None, b
    if sc:
        v = v * _SCALE[sc.group(1).lower()]
    if kind == "msym" and _SCORE_BEFORE.search(text, max(0, a - 40), a):
        return (SlotType.count, _norm(v), None, None, a, b), b  # "credit score: $720" is a score, not money
    return (SlotType.money, _norm(v), None, _money_unit(s, currency), a, b), b


def scan_values(text: str, currency: str) -> tuple:
    """Every value in `text` as (type, value, max, unit, start, end) tuples; cached (many short
    statements, a few large evidence texts)."""
    if len(text) < 4000:
        return _scan_small(text, currency)
    return _scan_large(text, currency)


@lru_cache(maxsize=8)
def _scan_large(text: str, currency: str) -> tuple:
    return _scan_text(text, currency)


@lru_cache(maxsize=8192)
def _scan_small(text: str, currency: str) -> tuple:
    return _scan_text(text, currency)


def _scan_text(text: str, currency: str) -> tuple:
    out = []
    pos, n = 0, len(text)
    search = _SCAN.search
    while pos < n:
        m = search(text, pos)
        if m is None:
            break
        f, pos = _classify(m, text, currency)
        if f is not None:
            out.append(f)
        if pos <= m.start():
            pos = m.start() + 1
    return tuple(out)


def find_values(text: str, currency: str = "USD") -> list[Found]:
    """Every typed value in `text`, in order: (SlotType, value, value_max, unit, start, end).

    Plain numbers and number words are counts; times of day are skipped; digits inside
    dates, identifiers and codes are not reported separately."""
    return list(scan_values(text, currency))


# --- policy side: slots ----------------------------------------------------------------------
_STOP = frozenset("""a an the of to in on for and or nor is are was were be been being by with at as from that
this these those it its per each any all every not no must may can could will would should shall than then there
their they them who whom which what when where while if only also but so such into onto over under up down out about
after before between during within without via your you our we us his her he she one both either neither other
another more most less least few fewer many much some same own just very too do does did done has have had having
get gets got via plus minus x always never""".split())
_NOT_NOUN = _STOP | frozenset("""am pm apart ago later earlier prior total each instead per
away back again around above below less more""".split())
_QUALIFIERS = [
    (re.compile(r"(?:\bat\s+most|\bno\s+more\s+than|\bnot\s+more\s+than|\bmaximum\s+(?:of\s+)?|\bmax\.?"
                r"|\bnot\s+exceed(?:ing)?|\bcapped\s+at)\s*$", re.I), "at_most"),
    (re.compile(r"\bup\s+to\s*$", re.I), "up_to"),
    (re.compile(r"(?:\bat\s+least(?:\s+an?)?|\bno\s+less\s+than|\bnot\s+less\s+than|\bminimum\s+(?:of\s+)?|\bmin\.?"
                r"|\bno\s+fewer\s+than|\breach(?:ed|es)?)\s*$", re.I), "at_least"),
    (re.compile(r"(?:\bmore\s+than|\bgreater\s+than|\bover|\bexceeds?|\bexceeding|\babove"
                r"|\bin\s+excess\s+of)\s*$", re.I), "more_than"),
    (re.compile(r"(?:\bless\s+than|\bfewer\s+than|\bunder|\bbelow)\s*$", re.I), "less_than"),
    (re.compile(r"\bexactly\s*$", re.I), "exactly"),
]
_SECTION_WORDS = re.compile(r"\b(?:section|sections|step|steps|chapter|article|part|appendix|tier|phase|item|figure|"
                            r"table|page|line|stage|level|version|v|no|number|rule|question|q|option|example|"
                            r"scenario|case|category|priority|column|row|flag)\.?\s*$", re.I)
_KEYWORDS = {
    SlotType.money: ("fee fees deposit charge charges cost costs price prices amount balance limit minimum maximum cap "
                     "rebate bonus credit refund compensation payment penalty fine reward rewards discount threshold "
                     "allowance spend purchase withdrawal transfer certificate insurance baggage reimbursement "
                     "deductible premium surcharge rate value line requirement waiver").split(),
    SlotType.percent: ("discount apy apr rate interest fee bonus cashback cash back rebate utilization reduction "
                       "increase markup surcharge commission share tax apy").split(),
    SlotType.duration: ("tenure period window grace notice delay refund hold age term validity expiry lock "
                        "timeframe deadline wait").split(),
}
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'-]*")
_BOUNDARY = re.compile(r"[,;:.()\[\]!?\"“”|→=/—–]|\s-\s")


def _words_before(text: str, pos: int, n: int = 4) -> list[str]:
    seg = text[max(0, pos - 60):pos]
    cut = max((m.end() for m in _BOUNDARY.finditer(seg)), default=0)
    return [w.lower() for w in _WORD_RE.findall(seg[cut:])][-n:]


def _words_after(text: str, pos: int, n: int = 4) -> list[str]:
    seg = text[pos:pos + 60]
    m = _BOUNDARY.search(seg)
    if m:
        seg = seg[:m.start()]
    return [w.lower() for w in _WORD_RE.findall(seg)][:n]


def _noun_after(text: str, end: int) -> Optional[str]:
    """The head noun right after a number: '2 free checked bags for' -> 'bags'."""
    m = re.match(r"[ \t]+([A-Za-z][A-Za-z'-]*)", text[end:end + 40])
    if not m or m.group(1).lower() in _NOT_NOUN or len(m.group(1)) < 2:
        return None
    run = []
    for w in _words_after(text, end, 4):
        if w in _NOT_NOUN or w in WORD_VALUES:
            break
        run.append(w)
    return run[-1] if run else None


def _slug(w: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", w.lower()).strip("_")


def _name_for(text: str, a: int, b: int, typ: SlotType, unit: Optional[str]) -> str:
    if typ == SlotType.count:
        hy = _HYPHEN_NOUN.match(text, b)
        n = hy.group(1).lower() if hy else _noun_after(text, b)
        if n:
            return _slug(n)
        lab = _LABEL_VALUE_BEFORE.search(text, 0, a)
        before = [w for w in _words_before(text, lab.start() + 1 if lab else a, 3) if w not in _STOP]
        return _slug(before[-1]) if before else "count"
    if typ in _KEYWORDS:
        keys = _KEYWORDS[typ]
        before, after = _words_before(text, a), _words_after(text, b, 3)
        lab = _LABEL_VALUE_BEFORE.search(text, 0, a)
        if not before and lab:
            before = _words_before(text, lab.start() + 1)
        order = (after + before[::-1]) if typ == SlotType.percent else (before[::-1] + after)
        for w in order:
            if w in keys:
                return _slug(w)
        if typ == SlotType.duration:
            return _slug((unit or "duration") + "s")
        content = [w for w in before[::-1] if w not in _STOP]
        return _slug(content[0]) if content else typ.value
    if typ == SlotType.date:
        return "date"
    if typ == SlotType.identifier:
        return "id"
    return typ.value


def qualifier_before(text: str, a: int) -> Optional[str]:
    seg = text[max(0, a - 30):a]
    for rx, q in _QUALIFIERS:
        if rx.search(seg):
            return q
    return None


_BOLD_OR_QUOTE = re.compile(r"(?<![\w])(['\"“‘])([^'\"“”‘’\n]{1,60}?)(['\"”’])(?![\w])")
_LABEL_AFTER = re.compile(r"\s*(?::|\s-\s|\s—\s|—|–\s)")


def _enum_spans(text: str, bold: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Bold terms and quoted options that name a value (not labels, not whole statements)."""
    spans = []
    stripped = text.strip()
    for a, b in bold:
        inner = text[a:b].strip()
        if not inner or inner.endswith(":") or len(inner.split()) > 4 or len(inner) > 40:
            continue
        if inner == stripped.rstrip(".!?:") or not re.search(r"[A-Za-z0-9]", inner):
            continue
        lead = text[:a].strip()
        if (not lead or lead.endswith((":", "-", "—", "•"))) and _LABEL_AFTER.match(text, b):
            continue  # "**Security Hold**: ..." is a label
        if inner.isupper() and len(inner) > 3 and not any(ch.isdigit() for ch in inner):
            continue  # emphasis: **CANNOT**, **DO NOT**
        spans.append((a, b))
    for m in _BOLD_OR_QUOTE.finditer(text):
        open_q, inner, close_q = m.group(1), m.group(2), m.group(3)
        pair_ok = (open_q == close_q) or (open_q in "“‘" and close_q in "”’")
        if not pair_ok or not inner.strip() or len(inner.split()) > 6 or inner != inner.strip():
            continue
        spans.append((m.start(2), m.end(2)))
    return spans


def _overlaps(a: int, b: int, spans: list[tuple[int, int]]) -> bool:
    return any(a < y and x < b for x, y in spans)


# A bare number stated as a clause's value: "an annual fee of 0.", "the fee reflects 0 if ..."
_STATED_NUMBER = re.compile(r"\b(?:of|is|are|was|be|becomes?|reflects?|equals?|to)\s+$", re.IGNORECASE)
_CLAUSE_END_AFTER = re.compile(r"\s*(?:[.,;:!?)]|$|(?:if|when|unless|for|per|once)\b)", re.IGNORECASE)
_DIAL_BEFORE = re.compile(r"\b(?:call|dial|text)\b(?:[^.,;:\d]{0,30}?\bat)?\s*$", re.I)
_HYPHEN_NOUN = re.compile(r"-([A-Za-z]{2,})\b")
_LABEL_VALUE_BEFORE = re.compile(r"[A-Za-z)][ \t]*[:=][ \t]*$")
_VALUE_END = re.compile(r"[ \t]*(?:\([^)]*\))?[ \t]*[.;]?[ \t]*$")


def parse_slots(text: str, currency: str = "USD", *, bold: Optional[list[tuple[int, int]]] = None,
                bare_counts: bool = False) -> list[Slot]:
    """Typed values a policy sentence states, in order of appearance.

    `text` may carry markdown (`**gold**`); slot texts are always substrings of the text
    with markup removed (and of the raw text when a value does not straddle markup).
    `bold` gives bold spans of an already cleaned text; `bare_counts` accepts a lone
    number as a count (table cells).
    """
    if bold is None:
        text, bold = clean_inline(text)
    found: list[tuple[SlotType, object, object, Optional[str], int, int, Optional[str]]] = []
    stripped = text.strip()
    for typ, v, vmax, unit, a, b in scan_values(text, currency):
        qual = qualifier_before(text, a)
        if typ == SlotType.count and (unit or text[a:b].lower() in _FREQ or text[a:b].lower().endswith(" single")
                                      or _SCORE_BEFORE.search(text, max(0, a - 40), a)):
            pass  # a measured amount (2GB, 3G), a frequency (once), "a single" or a score: always a value
        elif typ == SlotType.count:
            raw = text[a:b]
            if raw.endswith("+"):
                qual = qual or "at_least"
            lead = text[:a].strip()
            if not lead and re.match(r"\s*[.)]", text[b:b + 2]):
                continue  # list marker
            if _SECTION_WORDS.search(text[max(0, a - 20):a]):
                continue  # "Step 2", "Section 4"
            if re.match(r"\.\d", text[b:b + 2]):
                continue  # "4.2.1" section number
            if _DIAL_BEFORE.search(text, max(0, a - 40), a) and re.fullmatch(r"\d{3,}", raw):
                found.append((SlotType.identifier, raw, None, None, a, b, None))
                continue  # "call 911", "reach us at 611"
            is_age = bool(re.match(r"[\s-]+years?[\s-]", text[b:b + 8], re.I))
            hyphen = _HYPHEN_NOUN.match(text, b)
            ok = (qual is not None or is_age or vmax is not None or raw.endswith("+") or hyphen is not None
                  or _noun_after(text, b) is not None or _STATED_NUMBER.search(text, max(0, a - 14), a) is not None
                  and _CLAUSE_END_AFTER.match(text, b) is not None
                  or (bare_counts and text[a:b] == stripped.rstrip("."))
                  or (_LABEL_VALUE_BEFORE.search(text, 0, a) is not None and _VALUE_END.match(text, b) is not None))
            if raw.lower() == "one" and qual is None and not _noun_after(text, b):
                ok = False
            if not ok:
                continue
        found.append((typ, v, vmax, unit, a, b, qual))
    taken = [(f[4], f[5]) for f in found]
    for a, b in _enum_spans(text, bold):
        if _overlaps(a, b, taken):
            continue
        found.append((SlotType.enum, text[a:b].strip().lower(), None, None, a, b, None))
        taken.append((a, b))
    found.sort(key=lambda f: f[4])
    slots: list[Slot] = []
    names: dict[str, int] = {}
    seen_text: set[str] = set()
    for typ, v, vmax, unit, a, b, qual in found:
        surface = text[a:b]
        if surface in seen_text:
            continue
        seen_text.add(surface)
        name = _name_for(text, a, b, typ, unit) or typ.value
        if typ == SlotType.count and re.match(r"[\s-]+years?[\s-]+old|\s+years\s+of\s+age", text[b:b + 14], re.I):
            name = "age"
        names[name] = names.get(name, 0) + 1
        if names[name] > 1:
            name = f"{name}_{names[name]}"
        slots.append(Slot(name=name, type=typ, text=surface, value=v, value_max=vmax, unit=unit, qualifier=qual))
    return slots


def figure_slots(text: str, currency: str = "USD") -> list[Slot]:
    """The values a figure standing alone states ("$30", "2GB", "twice", "4"): `parse_slots`
    with a lone number read as a count, as a wrong or old figure of a count fact is written."""
    return parse_slots(text, currency, bare_counts=True)


# --- markdown inline cleaning -------------------------------------------------------------------
_INLINE = re.compile(
    r"\*\*(?P<b>[^*\n]+?)\*\*"
    r"|(?<![\w])__(?P<b2>[^_\n]+?)__(?![\w])"
    r"|`(?P<c>[^`\n]+)`"
    r"|!\[(?P<ia>[^\]\n]*)\]\([^)\n]*\)"
    r"|\[(?P<la>[^\]\n]+)\]\([^)\n]*\)"
    r"|(?<![\w*])\*(?P<i>[^*\s][^*\n]*?)\*(?![\w*])"
    r"|(?<![\w])_(?P<i2>[^_\s][^_\n]*?)_(?![\w])"
    r"|<(?:br|/?[a-zA-Z][a-zA-Z0-9]*)(?:\s[^>\n]*)?/?>"
    r"|\\(?P<esc>[\\`*_{}\[\]()#+\-.!|<>])"
)
_INNER = re.compile(r"`|\*\*|\\(?=[\\`*_{}\[\]()#+\-.!|])")


def clean_inline(text: str) -> tuple[str, list[tuple[int, int]]]:
    """Remove inline markdown (bold, italics, code, links, html tags, escapes); returns the
    plain text and the spans of bold terms in it."""
    if not any(ch in text for ch in "*_`[<\\"):
        return text, []
    out: list[str] = []
    bold: list[tuple[int, int]] = []
    pos = 0
    n = 0
    for m in _INLINE.finditer(text):
        out.append(text[pos:m.start()])
        n += m.start() - pos
        g = m.lastgroup
        if g in ("b", "b2"):
            inner = _INNER.sub("", m.group(g))
            bold.append((n, n + len(inner)))
        elif g in ("c", "ia", "la", "i", "i2", "esc"):
            inner = m.group(g) or ""
        else:
            inner = " "
        out.append(inner)
        n += len(inner)
        pos = m.end()
    out.append(text[pos:])
    return "".join(out), bold


# --- evidence side -----------------------------------------------------------------------------------
def _build_index(text: str, currency: str) -> dict:
    index: dict = {}
    for typ, v, vmax, unit, a, b in scan_values(text, currency):
        key = value_key(typ, v, vmax, unit)
        if key not in index:
            index[key] = (a, b)
    return index


@lru_cache(maxsize=8)
def _index_large(text: str, currency: str) -> dict:
    return _build_index(text, currency)


@lru_cache(maxsize=2048)
def _index_small(text: str, currency: str) -> dict:
    return _build_index(text, currency)


@lru_cache(maxsize=8192)
def _literal_rx(needle: str) -> Optional[re.Pattern]:
    parts = [re.escape(p) for p in re.split(r"[\s_-]+", needle.strip()) if p]
    if not parts:
        return None
    return re.compile(r"(?<![\w])" + r"[\s_-]+".join(parts) + r"(?![\w])", re.IGNORECASE)


def _literal_span(needle: str, text: str) -> Optional[tuple[int, int]]:
    rx = _literal_rx(needle)
    m = rx.search(text) if rx else None
    return m.span() if m else None


def slot_matches(slot: Slot, text: str) -> Optional[tuple[int, int]]:
    """Span of a mention of the slot's value in `text`, or None.

    Type-aware, by `facts.models.value_key`: a count 2 matches "2" or "two" (not "$2");
    money compares amount and currency; durations convert between minutes and weeks.
    Enums and identifiers match their text case-insensitively (spaces, '-' and '_' alike)."""
    if slot.type in (SlotType.enum, SlotType.identifier):
        for needle in (slot.text, str(slot.value)):
            span = _literal_span(needle, text)
            if span:
                return span
        return None
    currency = slot.unit if slot.type == SlotType.money and slot.unit else "USD"
    key = slot.key()
    index = _index_small(text, currency) if len(text) < 4000 else _index_large(text, currency)
    if key in index:
        return index[key]
    if slot.type == SlotType.date:
        return _literal_span(slot.text, text)
    return None


def normalise(text: str, currency: str = "USD") -> Optional[tuple]:
    """(type, value, value_max, unit) of a text that is exactly one value, else None."""
    vals = scan_values(text.strip(), currency)
    if len(vals) != 1:
        return None
    typ, v, vmax, unit, a, b = vals[0]
    if a != 0 or b != len(text.strip()):
        return None
    return (typ, v, vmax, unit)


# --- conversation side ---------------------------------------------------------------------------
class Stated(NamedTuple):
    """A value stated in a conversation: `find_values`' fields plus the noun a plain count
    counts ("3 bikes" -> "bikes"; None for a bare number)."""
    type: SlotType
    value: object
    value_max: object
    unit: Optional[str]
    start: int
    end: int
    noun: Optional[str] = None


# "between 5 and 7 days" is the range "5 to 7 days"; the rewrite keeps every offset after it
_BETWEEN = re.compile(rf"\bbetween\s+({NUMD}|{NUMW})\s+and\s+(?=(?:{NUMD}|{NUMW}))", re.IGNORECASE)
# a date without its year: "Mar 5", "March 5th", "5 March" ("May" only capitalised: "may" is a verb)
_MONTH_NOYEAR = _MONTH_RE.replace("|may|", "|(?-i:May)|")
_DAY_MONTH = re.compile(rf"\b(?P<m1>{_MONTH_NOYEAR})\.?\s+(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\b(?!\s*[:,.]?\s*\d)"
                        rf"|\b(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m2>{_MONTH_NOYEAR})\b\.?(?:,?\s+(?P<y>\d{{4}})\b)?", re.IGNORECASE)


def _partial_dates(text: str, taken: list[tuple[int, int]]) -> list[Stated]:
    out = []
    for m in _DAY_MONTH.finditer(text):
        a, b = m.span()
        if _overlaps(a, b, taken):
            continue
        mon = (m.group("m1") or m.group("m2")).lower()
        month, day = _MONTHS.get(mon, _MONTHS.get(mon[:3], 0)), int(m.group("d1") or m.group("d2"))
        if 1 <= month <= 12 and 1 <= day <= 31:
            year = m.group("y") or "-"
            out.append(Stated(SlotType.date, f"{year}-{month:02d}-{day:02d}", None, None, a, b))
    return out


def stated_values(text: str, currency: str = "USD") -> list[Stated]:
    """Every value said in a conversation message, in order: `find_values` plus what people
    say and policies do not write, "between 5 and 7 days" (the range 5 to 7 days), "the 5th
    of March 2026", and dates without a year ("Mar 5", value "--03-05"); plain counts carry
    the noun they count. Memoised: graders read the same replies and tool results again
    and again."""
    return list(_stated_values(text, currency))


@lru_cache(maxsize=16384)
def _stated_values(text: str, currency: str) -> tuple[Stated, ...]:
    spoken = _BETWEEN.sub(lambda m: " " * (m.start(1) - m.start()) + m.group(1)
                          + " to".ljust(m.end() - m.end(1)), text)
    found = [Stated(*f) for f in find_values(spoken, currency)]
    partial = _partial_dates(spoken, [(f.start, f.end) for f in found if f.type == SlotType.date])
    found = [f for f in found if not _overlaps(f.start, f.end, [(p.start, p.end) for p in partial])] + partial
    out = []
    for f in sorted(found, key=lambda f: f.start):
        noun = None
        if f.type == SlotType.count and f.unit is None:
            hy = _HYPHEN_NOUN.match(spoken, f.end)
            noun = hy.group(1).lower() if hy else _noun_after(spoken, f.end)
        out.append(f._replace(noun=noun))
    return tuple(out)


def same_value(want: tuple, said: tuple) -> bool:
    """Whether the value `said` (type, value, value_max, unit, ...) states `want`.

    By `facts.models.value_key`, with two allowances for what a person says: a bare number
    (a count with no unit, e.g. a communicate string "45") is stated by any value of that
    number ("$45.00", "45 days", "45%"; never 145 or 4.5), and a date without its year
    ("--03-05") states any date on that month and day."""
    wt, st = SlotType(want[0]), SlotType(said[0])
    if wt == SlotType.date and st == SlotType.date:
        w, s = str(want[1]).lower(), str(said[1]).lower()
        return w == s or (w.startswith("--") or s.startswith("--")) and w[-5:] == s[-5:]
    if wt == SlotType.count and want[3] is None and st in NUMERIC_TYPES:
        return (value_key(SlotType.count, want[1], want[2])[1:3] == value_key(SlotType.count, said[1], said[2])[1:3])
    return value_key(wt, *want[1:4]) == value_key(st, *said[1:4])


class StatedIndex:
    """The values stated in one text, indexed so that `saying(want)` equals
    `[s for s in stated if same_value(want, s)]` without comparing `want` to every value (a
    long reply states thousands)."""

    def __init__(self, stated: list[Stated]):
        self.stated = list(stated)
        self._by_key: dict = {}
        self._by_number: dict = {}
        self._by_day: dict = {}
        for n, s in enumerate(self.stated):
            st = SlotType(s.type)
            self._by_key.setdefault(value_key(st, s.value, s.value_max, s.unit), []).append(n)
            if st in NUMERIC_TYPES:
                self._by_number.setdefault(value_key(SlotType.count, s.value, s.value_max)[1:3], []).append(n)
            elif st == SlotType.date:
                self._by_day.setdefault(str(s.value).lower()[-5:], []).append(n)

    def saying(self, want: tuple) -> list[Stated]:
        """The stated values that state `want` (by `same_value`), in their order."""
        wt = SlotType(want[0])
        if wt == SlotType.date:
            cand = self._by_day.get(str(want[1]).lower()[-5:], [])
        elif wt == SlotType.count and want[3] is None:
            cand = self._by_number.get(value_key(SlotType.count, want[1], want[2])[1:3], [])
        else:
            cand = self._by_key.get(value_key(wt, *want[1:4]), [])
        return [self.stated[n] for n in cand if same_value(want, self.stated[n])]
