"""A policy line's clauses: the conditions its vocabulary implies ("Members can be Silver or
Gold: ..."), and the splits of a compound line into one statement per value (lists of
amounts, "if X, ...; otherwise ...", tier tables written as prose)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from .markdown import Text
from .models import NUMERIC_TYPES as NUMERIC
from .models import Condition, SlotType
from .values import scan_values

# --- vocabulary and conditions -----------------------------------------------------------------
_VOCAB_DEF = re.compile(
    r"^(?:there\s+(?:are|is)\s+(?:\w+\s+)?(?:(?:different\s+)?(?:types|kinds|sorts)\s+of\s+)?(?P<a1>[\w /-]{2,40}?)"
    r"|(?:the\s+)?(?P<a2>[\w /-]{2,40}?)\s+(?:can\s+be|could\s+be|is\s+one\s+of|are|include|includes))"
    r"\s*:\s*(?P<list>.+)$",
    re.IGNORECASE)


def _singular(w: str) -> str:
    lw = w.lower()
    if lw.endswith("ies") and len(lw) > 4:
        return w[:-3] + "y"
    if lw.endswith(("sses", "ches", "shes", "xes", "uses")):
        return w[:-2]
    if lw.endswith("s") and not lw.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def _attr_name(a: str) -> str:
    a = " ".join(a.split()).strip(" -/").lower()
    m = re.match(r"(.+?)\s+of\s+(?:an?|the|each|every)\s+(.+)$", a)
    if m:
        a = f"{m.group(2)} {m.group(1)}"
    words = a.split()
    if words:
        words[-1] = _singular(words[-1])
    return " ".join(words)


def vocab_from(t: Text) -> list[tuple[str, str]]:
    m = _VOCAB_DEF.match(t.text)
    if not m or not t.bold and "'" not in m.group("list") and '"' not in m.group("list"):
        return []
    attr = _attr_name(m.group("a1") or m.group("a2") or "")
    if not attr or len(attr.split()) > 4:
        return []
    lst = m.start("list")
    terms = [t.text[a:b].strip() for a, b in t.bold if a >= lst]
    terms += [q.group(2) for q in re.finditer(r"(['\"“])([^'\"”]{1,40})(['\"”])", m.group("list"))]
    return [(attr, term.lower()) for term in terms if term and len(term.split()) <= 4]


# A condition is a vocabulary term in a restricting role: inside a conditional clause ("if
# it is a gift card", "for each business passenger"), under a conditional list lead ("... if
# any of the following is true:"), or qualifying the subject ("Basic economy flights cannot
# ..."). Terms in a disjunction ("silver/gold member", "gift card or credit card") restrict
# nothing a list of conditions (a conjunction) can say; a negated term is "not <term>".
_COND_CUE = re.compile(r"\b(?:if|when|whenever|unless|for|whose|with|where|in\s+case\s+of)\b", re.IGNORECASE)
_CLAUSE_END = re.compile(r"[,;:.!?]|\s+(?:but|so|then)\s|\s+and\s+(?:you|the\s+agent|we|it|they)\b")
COND_LEAD = re.compile(r"\b(?:if|when|unless)\b", re.IGNORECASE)
_DISJUNCTION = re.compile(r"\bor\b|/|\beither\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|no|never|other\s+than|except)\b|n't\b", re.IGNORECASE)
_SUBJECT_DET = re.compile(r"(?:(?:the|a|an|all|any|each|every)\s+)?", re.IGNORECASE)
_VERBISH = re.compile(r"\s+(?:is|are|was|were|has|have|had|will|would|can|cannot|could|must|should|may|might|does|"
                      r"do|did|means|refers|stands|includes|consists|and|or)\b", re.IGNORECASE)


def _regions(text: str, body_at: int, conditional_lead: bool) -> list[tuple[int, int, bool]]:
    """(start, end, negated) spans of `text` where a vocabulary term restricts the fact."""
    out = []
    if conditional_lead:
        out.append((body_at, len(text), False))
    for m in _COND_CUE.finditer(text):
        e = _CLAUSE_END.search(text, m.end())
        out.append((m.start(), e.start() if e else len(text), m.group(0).lower() == "unless"))
    return out


def _attribute(attrs: list[str], text: str, end: int) -> str:
    """The vocabulary a term belongs to here: the one named by the noun after it ("suspended
    lines" -> line state), else the first that declared it."""
    noun = re.match(r"\s+([a-z]+)", text[end:end + 30], re.IGNORECASE)
    head = _singular(noun.group(1).lower()) if noun else ""
    return next((a for a in attrs if head and head in a.split()), attrs[0])


def vocab_conditions(text: str, body_at: int, conditional_lead: bool,
                      vocab: list[tuple[list[str], str, re.Pattern]], taken: list[tuple[int, int]],
                      skip_attrs: set[str]) -> list[Condition]:
    regions = _regions(text, body_at, conditional_lead)
    out: list[Condition] = []
    spans = list(taken)
    subj = _SUBJECT_DET.match(text, body_at).end()
    for attrs, term, rx in vocab:
        for m in rx.finditer(text):
            a, b = m.span()
            if any(a < y and x < b for x, y in spans):
                continue
            spans.append((a, b))
            attr = _attribute(attrs, text, b)
            if attr in skip_attrs or any(c.attribute == attr for c in out):
                break  # a conjunction holds one value per attribute
            region = next(((x, y, neg) for x, y, neg in regions if x <= a and b <= y), None)
            if region is None and a == subj and not _VERBISH.match(text, b) and re.match(r"\s+[a-z]", text[b:b + 3]):
                region = (a, b, False)  # "Basic economy flights ...": the subject's qualifier
            if region is None:
                continue
            x, y, neg = region
            clause = text[x:y]
            if _DISJUNCTION.search(clause) or re.search(r"\)\s*$", text[max(x, a - 3):a]):
                continue
            negated = neg or bool(_NEGATION.search(text[x:a]))
            out.append(Condition(attribute=attr, value=f"not {term}" if negated else term))
            break
    return out


# --- compound limits and alternatives -----------------------------------------------------------
_LIMIT_Q = re.compile(r"\b(?:at\s+most|at\s+least|up\s+to|no\s+more\s+than|no\s+fewer\s+than|no\s+less\s+than|"
                      r"a\s+maximum\s+of|a\s+minimum\s+of)\s+", re.IGNORECASE)


def split_compound(text: str, currency: str) -> Optional[list[str]]:
    """'Each reservation can use at most one travel certificate, at most one credit card, and
    at most three gift cards' -> one statement per limit."""
    text = text.rstrip(" .")
    qs = list(_LIMIT_Q.finditer(text))
    lead = text[:qs[0].start()] if qs else ""
    if len(qs) < 2 or not lead.strip():
        return None
    out = []
    for i, q in enumerate(qs):
        seg = text[q.start():qs[i + 1].start() if i + 1 < len(qs) else len(text)]
        if i + 1 < len(qs):
            sep = re.search(r"(?:,\s*(?:and|or)?|\s+(?:and|or))\s*$", seg)
            if not sep:
                return None
            seg = seg[:sep.start()]
        if len([v for v in scan_values(seg, currency) if v[0] in NUMERIC]) != 1:
            return None
        out.append(f"{lead}{seg.strip()}.")
    return out


_ALTERNATIVE = re.compile(r"^(?P<head>.*?\S)\s+(?P<cue>if|when)\s+(?P<cond>[^,;]+?)\s*[,;]\s*otherwise,?\s+"
                          r"(?P<alt>.+?)[.!]?$", re.IGNORECASE)
_CLAUSE_VERB = re.compile(r"\b(?:will|is|are|was|can|must|should|may|be|gets?|goes|go|has|have|takes?)\b", re.I)
_AUX = re.compile(r"\s+(?:will|is|are|was|can|must|should|may|gets?|goes|takes?)\b", re.IGNORECASE)


def split_alternatives(text: str, currency: str) -> Optional[list[str]]:
    """'X immediately if it is a gift card, otherwise in 5 to 7 business days' -> 'X immediately
    if it is a gift card.' and 'X in 5 to 7 business days if it is not a gift card.', so each
    value keeps the condition of its own alternative."""
    m = _ALTERNATIVE.match(text.strip())
    if not m or not any(v[0] in NUMERIC for v in scan_values(m.group("alt"), currency)):
        return None  # only a value of the alternative needs its own condition
    head, cue, cond, alt = m.group("head"), m.group("cue").lower(), m.group("cond"), m.group("alt")
    verb = re.search(r"\b(is|are|was|were|has|have|does|do)\b", cond)
    neg = f"{cue} {cond[:verb.end()]} not{cond[verb.end():]}" if verb else f"unless {cond}"
    if _CLAUSE_VERB.search(alt):
        last = re.split(r",\s*(?:and\s+)?", head)[-1]
        subj = _AUX.search(last)
        pron = re.match(r"(?:it|they)\b", alt, re.IGNORECASE)
        if pron and subj:
            alt = last[:subj.start()] + alt[pron.end():]
        second = f"{alt} {neg}."
    else:
        adv = re.search(r"\s+(?:immediately|instantly|right\s+away|at\s+once|now|today|\w+ly)$", head)
        second = f"{head[:adv.start()] if adv else head} {alt} {neg}."
    return [f"{head} {cue} {cond}.", second[:1].upper() + second[1:]]


# --- per-tier splitting ------------------------------------------------------------------------
_SEG_SPLIT = re.compile(r"\s*;\s*|,\s+(?:and\s+|or\s+)?|\s+and\s+(?=[A-Za-z$€£]+[^,;]*$)")


_QUAL_WORDS = re.compile(r"\s+(?:max|min|maximum|minimum|up\s+to|at\s+most|at\s+least|only)\.?$")


@dataclass(frozen=True)
class _V:
    text: str
    type: SlotType


def split_tiers(piece: Text, currency: str, vocab_terms: dict[str, str]) -> Optional[list[tuple[str, Condition]]]:
    """'Gold members get 3 free bags, silver 2, regular 1' -> one (statement, condition) per value."""
    text = piece.text.rstrip(" .")
    if not (";" in text or ", " in text or " and " in text):
        return None
    pre = [v for v in scan_values(text, currency) if v[0] in NUMERIC]
    if len(pre) < 2 or len({v[0] for v in pre}) != 1:
        return None
    slots = [_V(text[v[4]:v[5]], v[0]) for v in pre]
    cuts = [0]
    for m in _SEG_SPLIT.finditer(text):
        cuts.extend([m.start(), m.end()])
    cuts.append(len(text))
    segs = [(cuts[k], cuts[k + 1]) for k in range(0, len(cuts), 2)]
    segs = [(a, b) for a, b in segs if b > a]
    if len(segs) != len(slots):
        return None
    seg_vals = []
    for (a, b), s in zip(segs, slots):
        idx = text.find(s.text, a)
        if idx < 0 or idx + len(s.text) > b:
            return None
        seg_vals.append((text[a:b], s, idx - a))
    typ_word = r"[A-Za-z][\w/&'-]*(?:\s+[A-Za-z][\w/&'-]*){0,3}"
    rest_labels = []
    for seg, s, off in seg_vals[1:]:
        v = re.escape(s.text)
        m = (re.fullmatch(rf"(?:and\s+|or\s+)?(?P<l>{typ_word})\s*(?::|=|-|–|—)?\s*{v}", seg)
             or re.fullmatch(rf"{v}\s+(?:for|on|in|at|with)\s+(?P<l>{typ_word})", seg))
        if not m:
            return None
        rest_labels.append(m.group("l"))
    first, s1, off1 = seg_vals[0]
    attr = None
    known = [vocab_terms.get(lbl.lower()) for lbl in rest_labels]
    if all(known) and len(set(known)) == 1:
        attr = known[0]
    # Label of the first segment: "lead label: value", "value on label", or a vocab term / leading word.
    label1, lead, template = None, "", None
    v1 = re.escape(s1.text)
    m = re.fullmatch(rf"(?P<lead>.*?(?::|—|–|\s-)\s*)?(?P<l>{typ_word})\s*(?::|=)\s*{v1}", first)
    if m:
        label1, lead = m.group("l"), (m.group("lead") or "").strip(" :—–-")
        make = (lambda lbl, val: f"{lead} for {lbl}: {val}." if lead else f"{lbl[:1].upper() + lbl[1:]}: {val}.")
    elif re.fullmatch(rf"(?P<lead>[^:]+):\s*(?P<l>{typ_word})\s+{v1}", first):
        m = re.fullmatch(rf"(?P<lead>[^:]+):\s*(?P<l>{typ_word})\s+{v1}", first)
        label1, lead = m.group("l"), m.group("lead").strip()
        make = (lambda lbl, val: f"{lead}: {lbl} {val}.")
    else:
        m = re.fullmatch(rf"(?P<lead>.*?){v1}\s+(?P<p>for|on|in|at|with)\s+(?P<l>{typ_word})", first)
        if m:
            label1, lead, prep = m.group("l"), m.group("lead"), m.group("p")
            make = (lambda lbl, val: f"{lead}{val} {prep} {lbl}.")
        else:
            cands = []
            if attr:
                cands = [term for term, at in vocab_terms.items() if at == attr]
                cands.sort(key=len, reverse=True)
            words = first.split()
            if not cands and words and words[0][:1].isupper() and all(len(lbl.split()) == 1 for lbl in rest_labels):
                cands = [words[0]]
            for c in cands:
                mm = re.search(rf"(?<![\w]){re.escape(c)}(?![\w])", first, re.IGNORECASE)
                if mm and not (mm.start() <= off1 < mm.end()):
                    label1 = first[mm.start():mm.end()]
                    template = (first[:mm.start()], first[mm.end():off1], first[off1 + len(s1.text):])
                    break
            if label1 is None:
                return None

            def make(lbl: str, val: str, t=template) -> str:
                pre, mid, post = t
                lb = lbl[:1].upper() + lbl[1:] if not pre else lbl
                return f"{pre}{lb}{mid}{val}{post}".rstrip(" .") + "."
    default_attr = "category" if re.search(rf"{v1}\s+(?:on|in|at)\s", first) else "tier"

    def cond(lbl: str) -> Condition:
        low = _QUAL_WORDS.sub("", lbl.lower()).strip() or lbl.lower()
        if attr is None:
            for term in sorted(vocab_terms, key=len, reverse=True):
                if re.search(rf"(?<![\w-]){re.escape(term)}(?![\w-])", low):
                    return Condition(attribute=vocab_terms[term], value=term)
        return Condition(attribute=attr or vocab_terms.get(low) or default_attr, value=low)

    out = [(make(label1, s1.text), cond(label1))]
    for (seg, s, off), lbl in zip(seg_vals[1:], rest_labels):
        out.append((make(lbl, s.text), cond(lbl)))
    if len({o[0] for o in out}) != len(out):
        return None
    return out


# --- anchors ------------------------------------------------------------------------------------
