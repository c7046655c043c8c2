"""A small template grammar for generated wording (the haystack and the writers).

Template syntax:
- `{a|b|c}` picks one alternative (alternatives nest: `{Hi|Hello{ there|}}`); `{x|}` makes
  `x` optional;
- `<name>` is replaced by the slot `name` (a string the caller passes) or, when the grammar
  has a rule `name`, by an expansion of one of that rule's alternatives (rules nest too).

`expand` makes every choice with the caller's `random.Random`, so the same seed gives the
same text. `finish` turns an expansion into a sentence: spaces and punctuation seams tidied,
"a"/"an" agreeing with the next word, the first letter capitalised. Templates are parsed
once (cached by their text).
"""
from __future__ import annotations

import random
import re
from functools import lru_cache
from typing import Mapping, Sequence, Union

from facts.surface import int_to_words

Node = Union[str, "Choice", "Ref"]


class Choice(tuple):
    """Alternatives, each a tuple of nodes."""


class Ref(str):
    """A slot or rule name."""


def _parse(text: str, i: int, stop: str) -> tuple[list, int]:
    seq: list = []
    buf: list[str] = []
    while i < len(text):
        ch = text[i]
        if ch in stop:
            break
        if ch == "{":
            if buf:
                seq.append("".join(buf))
                buf = []
            alts, i = [], i + 1
            while True:
                alt, i = _parse(text, i, "|}")
                alts.append(tuple(alt))
                if i >= len(text):
                    raise ValueError(f"unclosed '{{' in template {text!r}")
                if text[i] == "}":
                    i += 1
                    break
                i += 1
            seq.append(Choice(alts))
            continue
        if ch == "<":
            j = text.find(">", i)
            if j < 0:
                raise ValueError(f"unclosed '<' in template {text!r}")
            if buf:
                seq.append("".join(buf))
                buf = []
            seq.append(Ref(text[i + 1:j]))
            i = j + 1
            continue
        buf.append(ch)
        i += 1
    if buf:
        seq.append("".join(buf))
    return seq, i


@lru_cache(maxsize=8192)
def parse(template: str) -> tuple:
    seq, i = _parse(template, 0, "")
    if i != len(template):
        raise ValueError(f"unbalanced template {template!r}")
    return tuple(seq)


def expand(template: str, rng: random.Random, slots: Mapping[str, str] | None = None,
           rules: Mapping[str, Sequence[str]] | None = None, _depth: int = 0) -> str:
    """One expansion of `template` (see the module docstring)."""
    slots = slots or {}
    rules = rules or {}
    out: list[str] = []

    def walk(nodes) -> None:
        for n in nodes:
            if isinstance(n, Choice):
                walk(n[rng.randrange(len(n))])
            elif isinstance(n, Ref):
                if n in slots:
                    out.append(str(slots[n]))
                elif n in rules:
                    if _depth > 12:
                        raise ValueError(f"grammar rule {n!r} recurses too deeply")
                    alts = rules[n]
                    out.append(expand(alts[rng.randrange(len(alts))], rng, slots, rules, _depth + 1))
                else:
                    raise KeyError(f"template names unknown slot or rule <{n}>")
            else:
                out.append(n)

    walk(parse(template))
    return "".join(out)


def refs(template: str) -> set[str]:
    """Every `<name>` a template (with its alternatives) mentions."""
    found: set[str] = set()

    def walk(nodes) -> None:
        for n in nodes:
            if isinstance(n, Choice):
                for alt in n:
                    walk(alt)
            elif isinstance(n, Ref):
                found.add(str(n))

    walk(parse(template))
    return found


# --- finishing ------------------------------------------------------------------------------
_AN_EXCEPT = re.compile(r"^(?:uni(?![mn]|nf)|use|usu|eu|one|once|ur[aeiou]|u[bcfhjkqrstvwxz][aeiou])", re.I)
_AN_SILENT_H = re.compile(r"^(?:hour|honest|honou?r|heir)", re.I)
_LETTER_AN = set("AEFHILMNORSX")
# Capitals said as a word, not letter by letter ("a SIM", "a FICO score"; "an SMS" is spelt
# out): only those whose first letter, spelt, would take "an" need naming here.
_SAID_AS_WORD = {"SIM", "SIMS", "FICO", "HELOC", "HELOCS", "NATO", "NASA", "NASDAQ", "LAN", "RAM", "ROM", "SWIFT",
                 "SEPA", "SOFR", "LIBOR", "FEMA", "HIPAA", "FAFSA", "MIDI", "SCUBA", "LASIK", "RAID", "SAAS", "SARS"}


# a heading that is a question or a clause ("What can be changed", "How the fee is assessed",
# "STEP 3: Apply score thresholds", "Do I have to verify contacts?", "If direct integration is not
# supported", "After You Submit") is the title of a passage,
# not a name for its subject; `transforms.common.names_subject` and the realiser's measure
# names (`Realiser._measure_np`) both ask it
# the words that open a subordinate clause ("If ...", "Before calling ...", "Once the card ..."): one
# set for headings (here) and for a fact's label (`transforms.common.is_name`)
SUBORDINATORS = ("if", "unless", "when", "after", "before", "once", "until", "while")
CLAUSE_HEADING = re.compile(r"^(how|why|what|where|which|who|whom|whose|can|do|does|is|are|should|will|"
                            + "|".join(SUBORDINATORS) + r")\b(?!-)|[?:]", re.I)


def needs_an(word: str) -> bool:
    """Whether "an" (not "a") goes before `word`: by sound, for ordinary words, acronyms
    ("an SMS", "a PDF", but "a SIM": capitals said as a word) and digits ("an 8-day",
    "an 11%")."""
    w = word.strip("\"'(“‘$")
    if not w:
        return False
    if w[0].isdigit():
        digits = re.match(r"[\d,]+", w).group(0).replace(",", "")
        return int_to_words(int(digits[:12]))[:1] in "ae" if digits else False
    if len(w) > 1 and w[:2].isupper() and w.isalpha() and not w.lower() in ("us",):
        if w.upper() in _SAID_AS_WORD or re.sub(r"S$", "", w) in _SAID_AS_WORD:
            return False
        return w[0] in _LETTER_AN
    if _AN_SILENT_H.match(w):
        return True
    if _AN_EXCEPT.match(w):
        return False
    return w[0].lower() in "aeiou"


_ARTICLE = re.compile(r"\b([Aa])n?(\s+)([\"'(“‘]?[\w$][\w'-]*)")


def fix_articles(text: str) -> str:
    def sub(m: re.Match) -> str:
        a = m.group(1)
        art = (a + "n") if needs_an(m.group(3)) else a
        return f"{art}{m.group(2)}{m.group(3)}"

    return _ARTICLE.sub(sub, text)


def tidy_spaces(text: str) -> str:
    text = re.sub(r"[ \t]+", " ", text).strip()
    text = re.sub(r" +([,.;:!?)])", r"\1", text)
    text = re.sub(r"([(]) +", r"\1", text)
    text = re.sub(r",(?=[,.;:!?])", "", text)
    text = re.sub(r"([.!?])\.(?!\.)", r"\1", text)
    text = re.sub(r"(?<!\.)\.\.(?!\.)", ".", text)
    return text


def capitalise(text: str) -> str:
    first = text.split(" ", 1)[0]
    if "@" in first or first.startswith("www.") or (first[:1].islower() and any(c.isupper() for c in first[1:])):
        return text  # an address or a name like "eSIM" keeps its case
    for i, ch in enumerate(text):
        if ch.isalpha():
            return text[:i] + ch.upper() + text[i + 1:]
        if ch.isdigit():
            return text
    return text


_COMMON = ("A An The This That That's These Those It It's Its For To So Should Do Does Did Can Could Would Will What "
           "Which Who When Where How Is Are Was Were If Please Thanks Thank Let Let's Just Any Anything Nothing "
           "Everything All Give Send Check Shout Yes No Sure Okay Great Perfect Done Sent Same Happy Glad Good Nice "
           "You You're Your We We'll We're Our My Me There There's Here Here's Got Found Oh Ah Right Alright Sorry "
           "Appreciate Much Many Cheers Not Try Should Have Has Had Maybe Also Anyway Well Once One Some Both Either "
           "Noted Sounds Looks Lovely Brilliant Fantastic Excellent Super Welcome Mine Taking Leave Sorted Fixed "
           "Updated Corrected Booked Added Checking Looking Opening Bear Hope Hopefully Enjoy Take What's Who's Where's "
           "How's Is Which Does").split()
_MID_CAP = re.compile(r"((?:,|;| —| -)\s+)(" + "|".join(re.escape(w) for w in sorted(set(_COMMON), key=len, reverse=True))
                      + r")(?=[\s,.!?;:]|$)")
_SENT_START = re.compile(r"([.!?]\s+)([a-z])(?=[a-z]*[\s,.!?'])")


def finish(text: str, capital: bool = True) -> str:
    """An expansion as text: tidy seams, articles agreeing, the first letter of the text (when
    `capital`) and of every following sentence capitalised."""
    text = fix_articles(tidy_spaces(text))
    text = _MID_CAP.sub(lambda m: m.group(1) + m.group(2).lower(), text)
    text = _SENT_START.sub(lambda m: m.group(1) + m.group(2).upper(), text)
    return capitalise(text) if capital else text


def say(template: str, rng: random.Random, slots: Mapping[str, str] | None = None,
        rules: Mapping[str, Sequence[str]] | None = None, raw: Mapping[str, str] | None = None) -> str:
    """`expand` then `finish`. `raw` slots (a fact's wording, a question) are put in after
    `finish`, untouched: tidying never edits a fact's words or values."""
    marks = {k: f"\x00{i}\x00" for i, k in enumerate(raw or {})}
    out = finish(expand(template, rng, {**(slots or {}), **marks}, rules))
    for k, m in marks.items():
        out = out.replace(m, raw[k])
    return out


# --- verbs: third person, base form, modal phrasing -------------------------------------------
def third_person(verb: str) -> str:
    if verb in ("be",):
        return "is"
    if verb == "have":
        return "has"
    if verb in ("do", "go"):
        return verb + "es"
    if re.search(r"(s|x|z|ch|sh)$", verb):
        return verb + "es"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    return verb + "s"


def base_form(verb: str) -> str:
    if verb == "has":
        return "have"
    if verb == "is":
        return "be"
    if verb == "does":
        return "do"
    if verb.endswith("ies") and len(verb) > 4:
        return verb[:-3] + "y"
    if re.search(r"(sses|shes|ches|xes|zes)$", verb):
        return verb[:-2]
    if verb.endswith("s") and not verb.endswith("ss"):
        return verb[:-1]
    return verb


_MODAL_OUT: dict[str, list[tuple[str, str]]] = {  # key -> [(singular, plural)]
    "must": [("has to", "have to"), ("needs to", "need to"), ("is required to", "are required to")],
    "must_not": [("may not", "may not"), ("is not allowed to", "are not allowed to")],
    "must_never": [("may never", "may never"), ("is never allowed to", "are never allowed to"),
                   ("should never", "should never")],
    "must_only": [("may only", "may only"), ("is only allowed to", "are only allowed to")],
    "may": [("can", "can"), ("is allowed to", "are allowed to"), ("is free to", "are free to")],
    "may_not": [("cannot", "cannot"), ("is not allowed to", "are not allowed to"), ("is not able to", "are not able "
                                                                                                        "to")],
    "may_only": [("can only", "can only"), ("is only allowed to", "are only allowed to")],
    "cannot": [("is not able to", "are not able to"), ("may not", "may not"), ("is not allowed to",
                                                                                "are not allowed to")],
    "can_only": [("may only", "may only"), ("is only able to", "are only able to")],
    "can": [("may", "may"), ("is able to", "are able to"), ("is allowed to", "are allowed to")],
    "should": [("is expected to", "are expected to"), ("ought to", "ought to")],
    "should_not": [("is not expected to", "are not expected to"), ("ought not to", "ought not to")],
    "will": [("is going to", "are going to")],
    "will_not": [("is not going to", "are not going to")],
    "is": [("is", "are")], "is_not": [("is not", "are not")], "is_never": [("is never", "are never")],
    "is_only": [("is only", "are only")],
    "does_not": [("does not", "do not")], "never": [("never", "never")],
}
_MODAL_FIRST_PERSON = {"is": "am", "is not": "am not", "is never": "am never", "is only": "am only"}


def modal(key: str, plural: bool, rng: random.Random, canonical: bool = False, person: str = "3") -> str:
    opts = _MODAL_OUT.get(key) or [(key.replace("_", " "), key.replace("_", " "))]
    pick = opts[rng.randrange(len(opts))]
    out = pick[1] if plural or person in ("1p", "2") else pick[0]
    if person == "1s":
        out = _MODAL_FIRST_PERSON.get(pick[0], pick[1] if " " in pick[1] else pick[0])
    return out
