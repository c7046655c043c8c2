"""A catalog attribute said by what it means, not through its name.

A catalog cell ("Premier Checking — Minimum opening deposit: $100") names an attribute of a
row. Said as "Premier Checking has a minimum opening deposit of $100" every attribute reads
alike, and some read as nonsense ("The Tailwind Storm has a high-speed data added of ten
gigabytes"). `voice_attribute` says it by its class instead, each with a few constructions
the rng picks from:

- a floor ("Minimum ...", "Lowest ..."): "Premier Checking needs an opening deposit of at
  least $100", "you must be 18 years of age or older for ...";
- a cap ("Maximum ...", "Highest ..."): "The Hatch allows up to two lines per account";
- a limit ("Daily ATM withdrawal limit"): "Essential Checking limits daily ATM withdrawals to
  $500";
- an allowance or a quantity per period ("... per cycle", "... included", "... allowed",
  "... added"): "The Tailwind Storm adds ten gigabytes of high-speed data", "you can make
  up to one purchase per billing cycle";
- a fee, a charge or a price: "The Fleet Card costs $95 a year", "each additional line on
  the Hatch costs $15", "Essential Checking charges a 3% foreign transaction fee";
- a rate (APR, APY, interest): "Starter Savings pays a standard APY of 0.05%";
- a time to do something, a window, a term, a period: "The Tailwind Breeze activates within
  fifteen minutes", "you have 30 days to return furniture", "the rate lock period on ...
  lasts 45 days".

The meaning survives: a floor is said with "at least" or "or older", a cap with "up to", "no
more than" or "limits ... to", a per-unit or per-period value keeps its "per", "a month" or
"each". None when no class fits (the realiser's other cell frames say it then). What the
sentence must still hold (the recovery rule, no six-word run of the policy, the value's
bound: `facts.bounds`) the realiser checks on every draft, so a construction that drops too
many of the attribute's words is simply not used for that cell.
"""
from __future__ import annotations

import random
import re
from typing import Optional

from facts.models import Slot, SlotType

from .grammar import capitalise, needs_an, third_person
from .registers import Register

_PERIOD_ADJ = {"monthly": "a month", "annual": "a year", "yearly": "a year", "daily": "a day", "weekly": "a week",
               "nightly": "a night"}
_MIN = re.compile(r"^(?:minimum|min\.?|lowest|smallest)\s+(.+)$", re.I)
_MAX = re.compile(r"^(?:maximum|max\.?|highest|top|longest)\s+(.+)$", re.I)
_LIMIT = re.compile(r"^(?:(?P<period>daily|monthly)\s+)?(?P<x>.+?)\s+limit(?P<per>\s+per\s+.+)?$", re.I)
_ALLOW = re.compile(r"^(?P<x>.+?)(?:\s+(?P<verb>included|allowed|added))?(?P<per>\s+per\s+.+)?$", re.I)
_FEE_HEAD = re.compile(r"\b(?:fee|fees|charge|charges|price|cost|premium|penalty|surcharge)$", re.I)
_FEE = re.compile(r"\b(?:fee|charge|price|cost|premium|penalty|surcharge)\b", re.I)
_RATE = re.compile(r"\b(?:apy|apr|interest rate|rewards rate|rate)\b", re.I)


def _a(noun: str) -> str:
    """The article for a singular noun phrase ("an opening deposit"), none for a plural."""
    head = noun.split()[-1] if noun.split() else noun
    if head.endswith("s") and not head.endswith(("ss", "us", "is")):
        return ""
    return ("an " if needs_an(noun) else "a ")


def _plural(word: str) -> str:
    if re.search(r"(s|x|z|ch|sh)$", word):
        return word + "es"
    if re.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    return word + "s"


_TIME_UNITS = {"second", "seconds", "minute", "minutes", "hour", "hours", "day", "days", "week", "weeks", "month",
               "months", "year", "years"}


def _noun_of(val: str) -> str:
    """The counted noun a value ends in ("300 minutes" -> "minutes"), else ""."""
    m = re.search(r"\s([a-z][a-z-]+)$", val)
    return m.group(1) if m else ""


_MEASURES = {"gb", "mb", "gigabytes", "megabytes", "gigabyte", "megabyte", "kbps", "mbps", "gbps", "lb", "lbs", "kg",
             "miles", "points"}


def _counted(val: str, x: str, money: bool) -> Optional[str]:
    """The value with what it counts: "300 minutes" and "call minutes" -> "300 call
    minutes"; "2 GB" and "high-speed data" -> "2 GB of high-speed data"; "$5,000" and
    "free cash deposits" -> "$5,000 in free cash deposits"."""
    noun = _noun_of(val)
    words = x.split()
    if noun and words and words[-1].lower().rstrip("s") == noun.lower().rstrip("s"):
        return val[: -len(noun)] + " ".join(words[:-1] + [noun])
    if noun in _TIME_UNITS and words and words[-1].lower() in _TIME_UNITS:
        # "call minutes" counted in hours: "five hours of call time"
        return f"{val} of {' '.join(words[:-1])} time" if words[:-1] else val
    if noun and not money and re.match(r"^\S+\s+[a-z-]+$", val) and noun not in _MEASURES:
        return None  # "three fees" of "overdraft charges": no one phrase says both
    return f"{val} in {x}" if money else f"{val} of {x}"


def voice_attribute(what: str, whom: str, val: str, slot: Optional[Slot], product: bool, reg: Register,
                    rng: random.Random) -> Optional[str]:
    """A sentence (no final stop) saying that `whom` has the attribute `what` at `val`, by the
    attribute's meaning; None when no class fits. `product`: `whom` is a product (a card, a
    plan, an account) that can be a sentence's subject; else the sentence is "for {whom},
    ...". `reg`: a controlled register says no "you" and no "there's"."""
    if slot is None:
        return None
    w = what.strip()
    low = w.lower()
    typ = slot.type
    money = typ == SlotType.money
    you = reg.to_customer or not reg.controlled
    subj = capitalise(whom) if product else ""
    lead = "" if product else f"for {whom}, "
    options: list[str] = []

    m = _MIN.match(w)
    if m:
        rest = m.group(1)
        if rest.lower() == "age" and typ in (SlotType.duration, SlotType.count):
            age = val if re.search(r"\byears?$", val) else f"{val} years"
            options = [f"{lead}{'you must' if you else 'the customer must'} be {age} of age or older"
                       + (f" for {whom}" if product else ""),
                       (f"{subj} requires" if product else f"{lead}it takes") + f" an age of at least {age}"]
        else:
            must = "must" if reg.controlled else rng.choice(["has to", "must"])
            options = [f"the {rest} for {whom} {must} be at least {val}"]
            if not re.search(r"\b(?:to|of|for|in|on|at|with)\b", rest):  # "a deposit to waive the fee of ..." misreads
                options += [f"{subj} requires {_a(rest)}{rest} of at least {val}" if product else
                            f"{lead}the {rest} {must} be at least {val}",
                            f"{subj} needs {_a(rest)}{rest} of no less than {val}" if product else
                            f"{lead}{_a(rest)}{rest} of no less than {val} is needed"]
            if rest.lower() == "opening deposit" and product:
                options.append(f"to open {whom}, {'you need' if you else 'the customer needs'} to deposit at least "
                               f"{val}")
        return rng.choice(options)

    m = _MAX.match(w)
    if m:
        rest = m.group(1)
        pm = re.match(r"^(?P<x>.+?)(?P<per>\s+per\s+.+)?$", rest)
        x, tail = pm.group("x"), pm.group("per") or ""
        phrase = _counted(val, x, money) if typ == SlotType.count and _noun_of(val) else None
        if phrase is not None and not phrase.endswith(f" of {x}"):
            verb = "charges" if _FEE_HEAD.search(x) else "allows"
            options = [f"{subj} {verb} up to {phrase}{tail}" if product else f"{lead}no more than {phrase}{tail} apply",
                       f"{subj} {verb} no more than {phrase}{tail}" if product else
                       f"{lead}up to {phrase}{tail} are allowed"]
        else:
            options = [f"the {rest} for {whom} can be no more than {val}",
                       f"{subj} caps the {rest} at {val}" if product else f"{lead}the {rest} is capped at {val}",
                       f"{subj} allows {_a(rest)}{rest} of up to {val}" if product else
                       f"{lead}{_a(rest)}{rest} of up to {val} is allowed"]
        return rng.choice(options)

    m = _LIMIT.match(w)
    if m and typ in (SlotType.money, SlotType.count) and not re.search(r"\b(?:credit|time)$", m.group("x"), re.I):
        parts = m.group("x").split()
        things = " ".join(parts[:-1] + [_plural(parts[-1])])
        per = m.group("per") or (f" {_PERIOD_ADJ[m.group('period').lower()]}" if m.group("period") else "")
        options = [f"{subj} limits {things} to {val}{per}" if product else f"{lead}{things} are limited to {val}{per}",
                   f"with {whom}, {things} are capped at {val}{per}",
                   f"{things} on {whom} can go up to {val}{per}"]
        return rng.choice(options)

    m = _ALLOW.match(w)
    if m and (m.group("verb") or m.group("per") or low.startswith("free ")) and typ in (SlotType.count, SlotType.duration, SlotType.money) \
            and not _FEE_HEAD.search(m.group("x")) and not re.search(r"^speed\b|\b(?:price|rate|limit)\b", low):
        x, verb, per = m.group("x"), (m.group("verb") or "").lower(), m.group("per") or ""
        what_n = _counted(val, x, money)
        if what_n is None:
            return None
        if verb == "allowed":
            options = [f"{subj} allows up to {what_n}{per}" if product else f"{lead}up to {what_n} are allowed{per}",
                       f"{'you can make' if you else 'customers can make'} up to {what_n}{per} on {whom}"]
        elif verb == "added":
            options = [f"{subj} adds {what_n}{per}" if product else f"{lead}{what_n} are added{per}",
                       f"{'you get' if you else 'the customer gets'} {what_n}{per} added with {whom}"]
        else:
            v = "includes" if verb == "included" else rng.choice(["comes with", "includes"])
            options = [f"{subj} {v} {what_n}{per}" if product else f"{lead}{what_n} are included{per}",
                       (f"{'you get' if you else 'the customer gets'} {what_n}{per} with {whom}") if product else
                       f"{lead}{'you get' if you else 'the customer gets'} {what_n}{per}"]
        return rng.choice(options)

    if _FEE.search(low) and typ in (SlotType.money, SlotType.percent):
        pt = re.match(r"^(?P<x>.+?\b(?:fee|charge|price|cost))\s+(?P<per>per\s+[\w-]+(?:\s+[\w-]+)?)$", w, re.I)
        if pt and money:  # "Fee per additional transaction": the fee, then what it is per
            x = pt.group("x")
            options = [f"{subj} charges {_a(x)}{x} of {val} {pt.group('per')}" if product else
                       f"{lead}{_a(x)}{x} of {val} applies {pt.group('per')}"]
            return rng.choice(options)
        period = re.match(r"^(monthly|annual|yearly|daily|weekly|nightly)\s+(?:[\w-]+\s+)?(?:fee|price|cost)"
                          r"(?P<tail>\s+for\s+.+)?$", low)
        each = re.match(r"^(?:price|cost|fee)\s+(?P<tail>(?:for|per)\s+.+)$", w, re.I)
        named = re.match(r"^(?P<x>[\w -]+?)\s+(?:price|cost)$", w, re.I)
        if low in ("price", "cost") and product:
            options = [f"{subj} costs {val}", f"{subj} is priced at {val}"]
        elif period and money and product:
            options = [f"{subj} costs {val} {_PERIOD_ADJ[period.group(1)]}{period.group('tail') or ''}"]
            options.append(f"{subj} charges {_a(w)}{w} of {val}")
        elif each and money:
            tail = each.group("tail")
            thing = tail[4:] if tail.lower().startswith("for ") else tail
            options = [f"{capitalise(thing)} on {whom} costs {val}" if tail.lower().startswith("for ") else
                       f"{capitalise(whom)} costs {val} {tail}"]
        elif named and money:
            x = named.group("x")
            options = [f"{_a(x)}{x} for {whom} costs {val}", f"{lead}{_a(x)}{x} costs {val}"]
        elif typ == SlotType.percent and not re.search(r"\b(?:of|for|as|above|on|in|to)\b", low):
            options = [f"{subj} charges {_a(val)}{val} {w}" if product else f"{lead}there is {_a(val)}{val} {w}"]
        else:
            options = [f"{subj} charges {_a(w)}{w} of {val}" if product else f"{lead}{_a(w)}{w} of {val} applies"]
        if you and not reg.controlled and product:
            options.append(f"there's {_a(w)}{w} of {val} on {whom}")
        return rng.choice(options)

    if _RATE.search(low) and typ == SlotType.percent:
        if re.search(r"\bapy\b|rewards rate|interest rate", low) and not low.startswith(("starting", "penalty")):
            options = [f"{subj} pays {_a(w)}{w} of {val}" if product else f"{lead}the {w} is {val}",
                       f"{subj} earns {_a(w)}{w} of {val}" if product else f"{lead}{_a(w)}{w} of {val} applies"]
        elif low.startswith("starting"):
            options = [f"{low[9:]}s on {whom} start at {val}".replace("aprs", "APRs"),
                       f"{subj} starts at {_a(w)}{w} of {val}" if product else f"{lead}the {w} is {val}"]
        else:
            options = [f"{subj} comes at {_a(w)}{w} of {val}" if product else f"{lead}the {w} stands at {val}",
                       f"the {w} on {whom} stands at {val}"]
        return rng.choice([o.replace(" apr", " APR").replace(" apy", " APY") for o in options])

    if typ == SlotType.duration:
        m = re.match(r"^time to (\w+)(.*)$", low)
        if m:
            verb, rest = m.group(1), m.group(2)
            options = [f"{subj} {third_person(verb)}{rest} within {val}" if product else
                       f"{lead}it {third_person(verb)}{rest} within {val}",
                       f"it takes {val} for {whom} to {verb}{rest}"]
            return rng.choice(options)
        m = re.match(r"^return window$", low)
        if m:
            options = [f"{'you have' if you else 'customers have'} {val} to return {whom}",
                       f"{whom} can be returned within {val}"]
            return rng.choice(options)
        if low == "term" and product:
            return rng.choice([f"{subj} runs for {val}", f"{subj} runs for a term of {val}"])
        if re.search(r"\b(?:period|window|term)\b", low):
            return rng.choice([f"the {w} on {whom} lasts {val}"] + ([f"{lead}the {w} lasts {val}"] if lead else []))
    return None
