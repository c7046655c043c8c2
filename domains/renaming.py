"""Renaming a pack's world for a variant: the terms that must not survive (with their
replacements), one left-to-right renaming pass over text and JSON trees, and the scan for
base terms left in a variant's database."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Literal, Optional

from facts.models import Fact

RenameMode = Literal["ci", "cs", "prefix"]


def distinctive(term: str) -> bool:
    """Multi-word, dotted, digit-bearing or camel-cased terms are matched case-insensitively;
    a single plain word ("Main", "Grove") only with its own capitalisation, so ordinary
    prose ("the main reason") is left alone."""
    t = term.strip()
    return (" " in t or any(c.isdigit() or c in ".@&'_-" for c in t)
            or any(c.isupper() for c in t[1:]))


def term_pattern(term: str, mode: RenameMode) -> str:
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
        return term_pattern(self.old, self.mode)


def case_like(matched: str, old: str, new: str) -> str:
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
            return case_like(m.group(0), t.old, t.new) if t.mode == "ci" else t.new

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


_TOKEN = re.compile(r"[a-z][a-z0-9]*(?:['’-][a-z0-9]+)*")


def renamed_anchors(f: Fact, new_statement: str, R: Renamer) -> list[str]:
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
    low = text.lower()
    if len(low) != len(text) or not all(t.old.isascii() for t in terms):
        return rx.search(text) is None
    # a term's match starts where its text occurs (whatever the case for "ci"): try the term's
    # pattern at those places alone (its lookbehind still sees the character before)
    for t in terms:
        hay, needle = (low, t.old.lower()) if t.mode == "ci" else (text, t.old)
        at = hay.find(needle)
        if at < 0:
            continue
        one = re.compile(t.pattern())
        while at >= 0:
            if one.match(text, at):
                return False
            at = hay.find(needle, at + 1)
    return True


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
