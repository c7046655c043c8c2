"""Language measures over delivered files: how generated the evidence reads.

All measures read the text the kind's extractor returns (never the renderer's input):

- **distinct sentences**: the share of a domain's sentences that are distinct once numbers
  are masked (digits -> "#", case and punctuation ignored), and the most repeated ones.
  Fixed document furniture is left out: e-mail headers, attribution lines and signatures,
  chat-transcript header and footer blocks and system lines, speaker/time prefixes, "Label:
  value" metadata lines, running PDF headers and footers (a line on at least half of a PDF's
  pages) and page numbers, site furniture of knowledge-base pages and memos (a line on at
  least half of a domain's pages of that kind, at least three: navigation, footer,
  letterhead), spreadsheet/export cells that are data rather than prose
  (fewer than four words without sentence punctuation), and the row labels of a table (the
  first cell of a row, without figures or sentence punctuation, whose other cells hold the
  figures: "Daily ATM withdrawal limit | $500 | $1,000" is a schedule's header column,
  printed the same in every schedule of a catalog, as a header row is). **Quoted copies count once**: lines
  quoted in an e-mail reply ("> ...") are copies of a message that is counted where it was
  written, so they are dropped; so are forwarded-message blocks.
- **voiced runs**: a voiced rendition must share no run of six words with the policy
  statement; a file carrying a fact voiced fails when any 6-word run of the statement occurs
  anywhere in it (runs that belong to another fact the file states canonically excepted, and
  runs made only of one catalog label's words: naming a column is not copying the rule).
- **lead-ins**: the words that open a fact sentence before any word of the fact (its values,
  anchors or content words): "Per policy,", "Note:". The share of fact sentences opened by
  the most common lead-in.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Optional

from facts.match import content_words
from facts.models import Fact
# voiced runs are defined in facts.runs, where the renderers check the same runs as they write
from facts.runs import name_words, ngrams, only_names, phrases, shared_runs, tokens  # noqa: F401
from facts.values import slot_matches

# --- sentences --------------------------------------------------------------------------------
_FIELD = re.compile(r"^[A-Z][\w /&().#-]{0,30}:\s+\S")
_PAGE = re.compile(r"^\s*(page\s+\d+(\s+of\s+\d+)?|\d+\s*/\s*\d+|-\s*\d+\s*-)\s*$", re.I)
_CHAT_LINE = re.compile(r"^\[\d{1,2}:\d{2}(?::\d{2})?\]\s+([^:]{1,60}):\s?(.*)$")
_EXPORT_LINE = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2} ([^:]{1,60}):\s?(.*)$")
_SPEAKER = re.compile(r"^([A-Z][\w.'-]*(?: [A-Z][\w.'-]*){0,3}):\s+(.*)$")
_ATTRIBUTION = re.compile(r"^On .{6,120} wrote:\s*$")
_FORWARD = re.compile(r"^-{2,}\s*(Forwarded|Original) message\s*-{2,}", re.I)
# a sentence keeps its closing quote or bracket ("...I think?” 4.2 The fee" splits after the
# quote): a quotation cut from its closing mark would read as the document's own words
_SPLIT = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"”')\]])|(?<=[.!?][\"”')\]]{2}))\s+(?=[\"“(\[]?[A-Z0-9])")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def _prose(unit: str) -> bool:
    words = _WORD.findall(unit)
    if not words:
        return False
    return len(words) >= 4 or bool(re.search(r"[.!?]$", unit.strip()))


_SALUTATION = re.compile(r"^(hi|hello|hey|dear|good (morning|afternoon|evening)|morning|thanks|thank you|many thanks|"
                         r"best|kind regards|best regards|regards|warm regards|best wishes|cheers|sincerely|speak soon)"
                         r"\b[^.!?]{0,40},?$", re.I)


def _field_line(line: str) -> bool:
    if not _FIELD.match(line):
        return False
    value = line.split(":", 1)[1].strip()
    return len(value.split()) <= 8 and not re.search(r"[.!?]$", value)


def _eml_lines(text: str) -> list[str]:
    lines = text.split("\n")
    out, i = [], 0
    while i < len(lines) and lines[i].strip():  # header block
        i += 1
    in_sig = in_fwd = False
    for line in lines[i:]:
        s = line.rstrip()
        if s.startswith(">") or _ATTRIBUTION.match(s) or s.startswith("[attachment:"):
            continue
        if _FORWARD.match(s):
            in_fwd = True
            continue
        if in_fwd:
            continue
        if s in ("--", "-- "):
            in_sig = True
            continue
        if in_sig:
            if not s.strip():
                in_sig = False
            continue
        out.append(s)
    return out


def _chat_lines(text: str) -> list[str]:
    lines = text.split("\n")
    seps = [i for i, line in enumerate(lines) if re.fullmatch(r"\s*[-=_]{10,}\s*", line)]
    if len(seps) >= 2:
        lines = lines[seps[0] + 1:seps[-1]]
    out = []
    for line in lines:
        m = _CHAT_LINE.match(line)
        if m:
            if m.group(1).strip().lower() == "system":
                continue
            out.append(m.group(2))
        else:
            out.append(line)
    return out


def _pdf_lines(text: str) -> list[str]:
    pages = [p.split("\n") for p in text.split("\f")]
    if len(pages) >= 3:
        seen: Counter = Counter()
        for p in pages:
            seen.update({mask(line) for line in p if line.strip()})
        running = {k for k, n in seen.items() if n * 2 >= len(pages)}
    else:
        running = set()
    out = []
    for p in pages:
        # wrapped lines: a line not ending a sentence continues on the next one, unless a line
        # dropped as running chrome or a page number stood between them (a line that is also
        # on half the pages can be body text: "certificate is forfeited." ends a clause in the
        # definitions and again in its section; the line before it is not continued by the
        # next table row or heading, so "any unused remainder of a" + "Exception" is no
        # sentence of the file)
        buf = ""
        for line in p:
            if not line.strip():
                continue
            if mask(line) in running or _PAGE.match(line):
                if buf:
                    out.append(buf)
                    buf = ""
                continue
            buf = f"{buf} {line.strip()}" if buf else line.strip()
            if re.search(r"[.!?:]$", buf) or len(buf) > 600:
                out.append(buf)
                buf = ""
        if buf:
            out.append(buf)
    return out


SITE_MODALITIES = ("html", "docx")


def running_lines(texts: list[str], share: float = 0.5, min_files: int = 3) -> set[str]:
    """Site furniture: (masked) lines that occur in at least `share` of a set of pages of one
    kind, when there are at least `min_files` of them: a knowledge base's navigation, footer
    and feedback box, a memo template's letterhead and confidentiality line. The pages' own
    text differs from page to page; these lines are the template around it."""
    if len(texts) < min_files:
        return set()
    seen: Counter = Counter()
    for t in texts:
        seen.update({mask(line) for line in t.split("\n") if line.strip()})
    return {k for k, n in seen.items() if k and n >= max(min_files, share * len(texts))}


def units(text: str, modality: str, running: frozenset | set = frozenset()) -> list[str]:
    """The sentences of an extracted text that count for the language measures (furniture
    and quoted copies left out; see the module docstring). `running`: masked lines that are
    site furniture for this file's kind (`running_lines`)."""
    if modality == "eml":
        lines = _eml_lines(text)
    elif modality == "text":
        lines = _chat_lines(text)
    elif modality in ("pdf", "scan"):  # a scan's OCR wraps lines like a PDF's text layer
        lines = _pdf_lines(text)
    else:
        lines = text.split("\n")
    out: list[str] = []
    for raw in lines:
        line = raw.strip()
        if not line or _PAGE.match(line) or line.startswith("== Sheet:") or line.startswith("#") or \
                (running and mask(line) in running) or \
                (modality in ("eml", "docx") and _SALUTATION.match(line)):
            continue
        m = _EXPORT_LINE.match(line) or (_SPEAKER.match(line) if modality in ("vtt", "json", "text") else None)
        if m:
            line = m.group(2).strip()
        cells = [c.strip() for c in line.split(" | ")] if " | " in line else [line]
        if len(cells) > 1 and _row_label(cells):
            cells = cells[1:]
        for cell in cells:
            if not cell or _field_line(cell) and modality not in ("xlsx", "csv"):
                continue
            for sent in _SPLIT.split(cell):
                sent = sent.strip()
                if sent and _prose(sent) and not (len(cells) > 1 and len(_WORD.findall(sent)) < 4
                                                   and not re.search(r"[.!?]$", sent)):
                    out.append(sent)
    return out


def _row_label(cells: list[str]) -> bool:
    """Whether a table row's first cell labels the row: no figure and no sentence end in it,
    a figure in some other cell."""
    first = cells[0]
    return bool(first) and not re.search(r"\d|[.!?]$", first) and any(re.search(r"\d", c) for c in cells[1:])


def mask(sentence: str) -> str:
    """Lower case, numbers masked, punctuation dropped: the key two sentences share when they
    only differ by a number."""
    s = sentence.lower().replace("\u2019", "'")
    s = re.sub(r"\d(?:[\d,.:]*\d)?", "#", s)
    s = re.sub(r"[^a-z#' ]+", " ", s)
    return " ".join(s.split())


@dataclass
class Distinct:
    total: int = 0
    counts: Counter = field(default_factory=Counter)
    example: dict = field(default_factory=dict)

    def add(self, sentences: Iterable[str]) -> None:
        for s in sentences:
            k = mask(s)
            if not k:
                continue
            self.total += 1
            self.counts[k] += 1
            self.example.setdefault(k, s)

    @property
    def distinct(self) -> int:
        return len(self.counts)

    @property
    def ratio(self) -> float:
        return self.distinct / self.total if self.total else 1.0

    def top(self, n: int = 10) -> list[tuple[str, int]]:
        return [(self.example[k], c) for k, c in self.counts.most_common(n)]

    def over(self, limit: int = 20) -> list[tuple[str, int]]:
        return [(self.example[k], c) for k, c in self.counts.most_common() if c > limit]

    def summary(self, limit: int = 20) -> dict:
        return {"sentences": self.total, "distinct": self.distinct, "ratio": round(self.ratio, 4),
                "max_repeat": self.counts.most_common(1)[0][1] if self.counts else 0,
                "over_limit": len(self.over(limit)), "top": self.top(10)}



# --- lead-ins ---------------------------------------------------------------------------------
def fact_words(fact: Fact) -> set[str]:
    words = {w.lower() for a in fact.anchors for w in a.split()} | set(content_words(fact.statement))
    for s in fact.slots:
        words |= set(tokens(s.text))
    for c in fact.conditions:
        words |= set(tokens(c.value))
    return {w for w in words if len(w) > 2 or w.isdigit()}


_DETERMINERS = {"a", "an", "the", "each", "every", "any", "this", "that", "these", "those", "all", "no"}


def lead_in(sentence: str, fact: Fact, max_words: int = 4) -> str:
    """The words opening `sentence` before the first word of the fact, lower-cased; "" when
    the sentence starts with the fact itself."""
    words = fact_words(fact)
    stems = {w[:max(4, len(w) - 2)] if len(w) > 5 else w for w in words}
    out = []
    for raw in sentence.split():
        tok = tokens(raw)
        if not tok or (not out and (tok[0] in _DETERMINERS or re.search(r"\d", raw))):
            continue  # an article or an id opening a row is not a lead-in
        t = tok[0]
        if t in words or any(t.startswith(s) for s in stems if len(s) >= 4) or re.match(r"^\$?\d", t):
            break
        out.append(raw.strip())
        if len(out) >= max_words:
            break
    return mask(" ".join(out)) if out else ""


def sentences(text: str) -> list[str]:
    """The sentences of a text, line by line (what `fact_sentence` looks through)."""
    return [s.strip() for line in text.split("\n") for s in _SPLIT.split(line) if s.strip()]


def fact_sentence(text: str, fact: Fact, hint: str = "", sents: Optional[list[str]] = None) -> Optional[str]:
    """The sentence of `text` that states `fact`: the one around the matcher's snippet `hint`,
    else the first sentence holding one of its values, else the one with most of its content
    words. `sents`: `sentences(text)`, when the caller looks up several facts in one text."""
    if sents is None:
        sents = sentences(text)
    if not sents:
        return None
    for s in sents:
        if fact.slots and all(slot_matches(sl, s) is not None for sl in fact.slots[:1]):
            if not hint or any(w in s.lower() for w in fact_words(fact)):
                return s
    words = set(content_words(fact.statement))
    if not words:
        return None
    best = max(sents, key=lambda s: len(words & set(content_words(s))))
    return best if len(words & set(content_words(best))) * 10 >= len(words) * 6 else None
