"""Runs of words a text shares with a policy statement, defined once for the lint that
fails a file whose voiced rendition copies the policy (`audits.lints`, `audits.language`), the
difficulty measures (`audits.difficulty`) and the renderers that word a file's facts
(`transforms.common.word`: a sentence stating one fact must not carry a run of another fact
the same file words in its own way).

A run is `n` words (6 by default) within one phrase (`phrases`): it never crosses a sentence's
end, a table cell or row, nor a heading's end.

A writer checks its own drafts more strictly (`shares_run`, `first_shared_run`): in `words`,
a number's parts apart, and across phrase ends. Every run `shared_runs` finds is also one of
those (a token splits into whole words), so a draft that passes the writer's check passes the
lint.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Optional

from .match import STOP_WORDS
from .models import Fact

_TOK = re.compile(r"[a-z0-9$%]+(?:[.,][0-9]+%?)*")  # a number stays whole: "0.30%" is not "0" + "30%"


def tokens(text: str) -> list[str]:
    return _TOK.findall(text.lower().replace("\u00a0", " "))


def ngrams(text: str, n: int = 6) -> set[tuple[str, ...]]:
    """Runs of `n` words of `text` (within its phrases: `phrases`)."""
    out: set[tuple[str, ...]] = set()
    for t in phrases(text):
        out |= {tuple(t[i:i + n]) for i in range(len(t) - n + 1)}
    return out


def phrases(text: str) -> list[list[str]]:
    """The words of `text` in phrases, a run of words never crossing a phrase's end: a run never crosses a sentence's end, a table cell boundary (" | " in
    extracted spreadsheets, exports and HTML tables) nor a table row's end: a header cell followed by
    the next cell, or the header row's last cell followed by the next row's label, is not a
    phrase anybody wrote, nor a heading's end (a short line without closing punctuation before
    a capitalised line). Other lines of prose join (a sentence wraps)."""
    parts: list[str] = []
    prose: list[str] = []
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if " | " in line:  # a table row: its cells stand alone
            if prose:
                parts.append(" ".join(prose))
                prose = []
            parts += line.split(" | ")
        else:
            prose.append(line)
            nxt = lines[i + 1].lstrip() if i + 1 < len(lines) else ""
            if _heading(line) and nxt[:1].isupper():  # a heading and the paragraph under it
                parts.append(" ".join(prose))
                prose = []
    if prose:
        parts.append(" ".join(prose))
    out: list[list[str]] = []
    for part in parts:
        # nor a sentence's end: the last words of one sentence and the first of the next are
        # no phrase either (a list of rules, one per line, joins into one prose part)
        for sentence in sentences(part):
            t = tokens(sentence)
            if t:
                out.append(t)
    return out


def _heading(line: str) -> bool:
    """A short line without closing punctuation: a heading or a title, not a wrapped line of
    prose (wrapped lines are long)."""
    words = line.split()
    return 0 < len(words) <= 8 and not re.search(r"[.!?:;,\"\u201d)]$", line.strip())


# A sentence ends at ".", "!" or "?" after a word, a figure or a bracket, capitals included
# ("... to AWAITING PAYMENT. Once the customer accepts ...": no run "payment once the customer
# accepts the"), when the next sentence starts with a capital.
_SENTENCE_END = re.compile(r"(?<=[A-Za-z0-9%)][.!?])\s+(?=[\"\u201c(]?[A-Z])")


def sentences(text: str) -> list[str]:
    """`text` cut at its sentences' ends (as above); what is between two ends stays whole."""
    return _SENTENCE_END.split(text)


def shared_runs(statement: str, text: str, n: int = 6, exempt: Iterable[str] = (),
                names: Iterable[frozenset[str]] = ()) -> list[str]:
    """6-word runs of `statement` that occur in `text`, except runs that also belong to one of
    the `exempt` statements (other facts the text states canonically) and runs that only name
    something: every word of the run but function words belongs to one of `names` (`name_words`: the
    content words of one catalog row or column label, a tier, a cabin). A label of six words or
    more ("Cash deposit fee above the free amount", "Outgoing international wire in US
    dollars") is what the business calls the thing, in every file and in its own schedules;
    writing it out is naming, not copying the policy's phrasing. A run that joins two labels
    ("Corporate Purchasing Card free employee cards") or adds words of the rule's own still
    counts."""
    runs = ngrams(statement, n) & ngrams(text, n)
    if runs and exempt:
        other: set = set()
        for e in exempt:
            other |= ngrams(e, n)
        runs -= other
    if runs and names:
        runs = {r for r in runs if not only_names(r, names)}
    return sorted(" ".join(r) for r in runs)


def only_names(run: Iterable[str], names: Iterable[frozenset[str]]) -> bool:
    """Whether every word of `run` but function words belongs to one of `names` (`name_words`)."""
    words = {w for w in run if w not in STOP_WORDS}
    return any(words <= nm for nm in names if nm)


def name_words(facts: Iterable[Fact], min_words: int = 2) -> list[frozenset[str]]:
    """Content-word sets of the labels the facts are conditioned on (condition values: a
    catalog row and column, a tier, a cabin) and of the headings of the sections they stand
    in, of two words or more ("Minimum opening deposit": "the minimum opening deposit for the"
    names a column; "Understanding and Troubleshooting MMS (Picture/Video Messaging)" names a
    guide); for `shared_runs(names=...)`."""
    out: set[frozenset[str]] = set()
    for f in facts:
        for label in [c.value for c in f.conditions] + list(f.section):
            words = frozenset(w for w in tokens(label) if w not in STOP_WORDS)
            if len(tokens(label)) >= min_words and words:
                out.add(words)
    return sorted(out, key=lambda w: sorted(w))


# --- a writer's check of its own drafts ---------------------------------------------------------
_WORD = re.compile(r"[a-z0-9$%]+")  # a number's parts apart: "0.30%" is "0" + "30%"


def words(text: str) -> list[str]:
    """The words of `text` as a writer's check counts them: letters, digits, "$" and "%", a
    number's digit groups apart; finer than `tokens`."""
    return _WORD.findall(text.lower().replace("\u00a0", " ").replace("\u2019", "'"))


@lru_cache(maxsize=8192)
def _word_runs(statement: str, n: int = 6) -> frozenset:
    w = words(statement)
    return frozenset(tuple(w[i:i + n]) for i in range(len(w) - n + 1))


def shares_run(text: str, statement: str, n: int = 6) -> bool:
    """Whether `text` holds a run of `n` `words` of `statement`, phrase ends ignored."""
    w = words(text)
    runs = _word_runs(statement, n)
    return any(tuple(w[i:i + n]) in runs for i in range(len(w) - n + 1))


def first_shared_run(text: str, statement: str, n: int = 6) -> Optional[tuple[int, int]]:
    """Character span in `text` of the first run of `n` `words` shared with `statement`."""
    runs = _word_runs(statement, n)
    found = [(m.group(0), m.start(), m.end()) for m in _WORD.finditer(text.lower())]
    for i in range(len(found) - n + 1):
        if tuple(t for t, _s, _e in found[i:i + n]) in runs:
            return found[i][1], found[i + n - 1][2]
    return None
