"""Lints: the tells that give generated evidence away, found in the delivered files.

Every file is read through its kind's extractor (the same cached extraction recoverability
made), then checked for:

- `aside_in_controlled`: a spoken aside or a hedge ("as far as I know", "I think") in a
  controlled document (manual, knowledge base, memo, rate sheet, slides, screens); quoted
  text (a misconception a manual quotes) is not the document's own voice and is skipped;
- `agreement`: a subject and verb that disagree ("agents has to"), or "a"/"an" against the
  next word's sound ("a extra bag"); not on speech-recognition transcripts, whose free words
  are the recogniser's guesses (values are what it is sure of);
- `product_case`: a product or brand name with its capitalisation lost ("credit Builder
  Card"; a product or the company all in lower case);
- `heading_in_speech`: a policy heading of four words or more, a fact id, or a catalog cell
  ("Row — Column: value") pasted into what a person says;
- `duplicated_bullet`: the same line of four words or more printed twice within a few lines;
- `fact_steps`: a flowchart whose boxes are fact sentences (values, rules) rather than steps;
- `contradicting_replies`: two canned replies in one conversation that cannot both be true;
- `brand_internals`: the brand map's internals shown to readers ("the name used in customer
  communications for our base tier");
- `doubled_word`: a function word written twice in a row ("go to the the team huddle");
- `possessive_article`: a possessive before an article ("About my the statement");
- `singular_unit`: one of a counted unit in the plural ("It is 1 dollars", "one days");
- `mangled_idiom`: a set phrase broken by a word swap ("no-cost of charge");
- `attribute_frame`: an attribute voiced through its name rather than what it means, "X has
  a <attribute name> of <value>" ("The Tailwind Storm has a high-speed data added of ten
  gigabytes"; the realiser says it as "The Tailwind Storm adds ten gigabytes of high-speed
  data", `transforms.attributes`); a frame the policy's own statements use is its wording;
  not on speech-recognition transcripts (their free words are the recogniser's guesses).

Besides the hits (blocking: the build fails on any), the report carries the language
measures of `audits.language` for the domain: voiced renditions sharing a 6-word run with
the policy (blocking too), the distinct-sentence ratio and the most common lead-ins; and the
count of attribute frames (`attribute_frames`: the `attribute_frame` hits, per attribute
name).
"""
from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterable, Optional

from audits.extraction import SPEECH_MODALITIES
from facts.hashing import content_hash, sha256_hex
from facts.models import Fact, FactKind, FactSet
from facts.values import find_values
from transforms import registry
from transforms.base import Extraction
from transforms.fingerprint import code_fingerprint
from transforms.grammar import CLAUSE_HEADING, needs_an
from transforms.planner import EvidencePlan
from transforms.registers import ASIDES, HEDGES
from transforms.writers import BuiltinWriter

from . import language as L
from .parallel import cached_map

LINTS_SCHEMA_VERSION = "1.2"
CONTROLLED_KINDS = {"documents/pdf_manual", "documents/kb_article", "documents/memo", "tables/rate_sheet",
                    "visuals/slide_deck", "visuals/flowchart", "visuals/web_screenshot", "visuals/app_screenshot"}
SPEECH_FAMILIES = {"conversations", "recordings"}
HEARD = ("wav", "mp4")  # modalities read by speech recognition
# Replies that cannot both stand in one conversation: a guard for canned reply pools (the
# grammar's storylines never produce such a pair).
CONTRADICTIONS = [
    (r"they're in the storage room", r"not yet, maybe next week"),
    (r"front desk has it", r"i returned it yesterday"),
    (r"\bis (?:working|back|fixed) (?:again|now)\b", r"\bis still (?:down|broken|not working)\b"),
    (r"\bi (?:can|'ll) take it\b", r"\bno one can (?:take|cover) it\b"),
    (r"\bsorted on my side\b", r"\bstill waiting on (?:this|it)\b"),
]


@dataclass(frozen=True)
class Hit:
    lint: str
    path: str
    kind: str
    text: str


# --- single checks (text in, hits out) ----------------------------------------------------------
_QUOTED = re.compile(r"\u201c[^\u201d]*\u201d|\"[^\"]*\"")


def asides(text: str) -> list[str]:
    own = _QUOTED.sub(" ", text.lower().replace("\u2019", "'"))
    out = []
    for p in ASIDES + HEDGES:
        for m in re.finditer(rf"(?<![\w']){re.escape(p)}(?![\w'])", own):
            out.append(_snip(own, m.start(), m.end()))
    return out


_PLURAL_SUBJ = r"(?:agents|customers|passengers|members|clients|reps|staff members|they|we|you|employees)"
_SINGULAR_SUBJ = r"(?:he|she|it|the agent|an agent|the customer|a customer|each customer|every customer)"
_AGREE_RX = [re.compile(rf"\b{_PLURAL_SUBJ} (?:has|is|does|was|needs|gets|pays|receives)\b", re.I),
             re.compile(rf"\b{_SINGULAR_SUBJ} (?:have|are|do|were)\b(?! to\b)", re.I)]
_ART = re.compile(r"(?<![\w'-])(a|an|A|An) ([A-Za-z0-9$][\w'-]*)")


_PREPOSITIONS = {"for", "of", "to", "with", "by", "from", "at", "on", "in", "than", "about", "among", "between",
                 "like", "per", "under", "over", "into", "after", "before", "without", "within"}


def _object_of_preposition(text: str, start: int) -> bool:
    """Whether the noun at `start` sits in a prepositional phrase ("the daily limit for
    Premier clients is"): then it is not the verb's subject. Looks back over the clause's
    last three words."""
    clause = re.split(r"[.,;:!?\u2014()]", text[:start])[-1]
    return any(w.lower() in _PREPOSITIONS for w in clause.split()[-3:])


def agreement(text: str, allowed: Iterable[str] = ()) -> list[str]:
    """Subjects and verbs, articles and words that disagree. `allowed`: the slips the policy
    makes itself (`policy_slips`: "a mms" of tau2's telecom workflow, "facing a MMS issue"): the
    source's wording carried over, not one the writer made."""
    return [snip for snip, _key in _disagreements(text) if _key not in allowed]


def _disagreements(text: str) -> list[tuple[str, str]]:
    """(snippet, key) of each disagreement; the key is the pair itself, lower-cased ("a mms",
    "agents has")."""
    out = []
    for rx in _AGREE_RX:
        out += [(_snip(text, m.start(), m.end()), " ".join(m.group(0).lower().split()))
                for m in rx.finditer(text) if not _object_of_preposition(text, m.start())]
    for m in _ART.finditer(text):
        art, word = m.group(1).lower(), m.group(2)
        if word.lower() in ("per", "few", "lot", "bit", "couple"):
            continue
        if m.group(1) == "A" and re.search(r"\b[A-Z][a-z][\w-]* $", text[max(0, m.start() - 30):m.start()]):
            continue  # a label's letter ("for Dispute A and ..."), not an article
        if word.isupper() and _shouted(text, m.start(), m.end()):
            word = word.lower()  # "TO A HUMAN AGENT": a word in capitals, not letters spelt out
        if (art == "an") != needs_an(word):
            out.append((_snip(text, m.start(), m.end()), f"{art} {word.lower()}"))
    return out


def policy_slips(facts: Iterable[Fact]) -> list[str]:
    """The disagreements the policy's own statements and headings make (`agreement`'s keys):
    what a file may repeat as the policy writes it."""
    return sorted({key for f in facts for t in (f.statement, *f.section) for _snip, key in _disagreements(t)})


def _shouted(text: str, start: int, end: int) -> bool:
    """Whether the words either side of [start, end) are in capitals too (a message quoted
    in capitals: "YOU ARE BEING TRANSFERRED TO A HUMAN AGENT"), so a word in capitals there
    is a word, not an abbreviation read letter by letter ("an SMS")."""
    before = re.findall(r"[A-Za-z]+", text[max(0, start - 40):start])
    after = re.findall(r"[A-Za-z]+", text[end:end + 40])
    return any(w and len(w) > 1 and w.isupper() for w in (before[-1:] + after[:1]))


def _caps(words: list[str]) -> set[int]:
    return {i for i, w in enumerate(words) if w[:1].isupper()}


_GENERIC = {"account", "accounts", "card", "cards", "loan", "loans", "plan", "plans", "checking", "savings",
            "certificate", "mortgage", "program", "programme", "pass", "membership"}


def product_case(text: str, names: Iterable[str], strict: Iterable[str] = (), ocr: bool = False,
                 policy: Iterable[str] = ()) -> list[str]:
    """A name written with some of its capitals lost ("credit Builder Card"), or a `strict`
    name (the company, a product) written all in lower case. Lower-case words of a name may
    be written either way ("Reserve card" or "Reserve Card"), so may a trailing generic noun
    ("Everyday Savings account"); a label in sentence case (only its first word capitalised:
    a catalog row such as "Canceled recurring charge") is ordinary words mid-sentence; a
    longer name written exactly ("Metal Private Client Reserve card") is not checked against
    the shorter one inside it. `ocr`: the text was read from pixels, where tesseract sometimes
    takes a bold capital for its small letter (a web page's header drawn "Tau2 Telecom
    Multidoc", read "tau2 Telecom Multidoc"): a name that lost only its first capital, every
    other kept, is not reported there (a name all in lower case still is). A form the
    policy itself writes (`policy`: `policy_forms`) is its own casing, not a lost capital: the tau2
    banking_knowledge documents write "APY Boost" in one table and "APY boost" in another
    document's sentence."""
    strict, policy = set(strict), set(policy)
    low = text.lower()
    # only the names the text holds at all (in any case): most of a domain's names are not in
    # a given file, and the case-blind search below is the expensive part
    names = sorted({n for n in names if " " in n and n.lower() in low}, key=len, reverse=True)
    for name in names:  # longer names written exactly are not re-read as shorter ones
        text = text.replace(name, " " * len(name))
    out = []
    for name in names:
        words = name.split()
        caps = _caps(words)
        if words[-1].lower() in _GENERIC:
            caps.discard(len(words) - 1)
        if caps <= {0} and name not in strict:
            continue
        for m in re.finditer(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text, re.I):
            seen = m.group(0)
            if seen.isupper():
                continue
            kept = caps & _caps(seen.split())
            if kept == caps or (not kept and name not in strict):
                continue
            if ocr and kept and caps - kept == {0}:
                continue
            if seen in policy:
                continue
            out.append(_snip(text, m.start(), m.end()))
    return out


def policy_forms(facts: Iterable[Fact], names: Iterable[str]) -> list[str]:
    """Every case the policy's statements write a name of several words in, other than the
    name's own ("APY boost" beside the name "APY Boost"), in a statement or a section heading
    ("Fee summary" in one document, "Fee Summary" in another): the domain-wide context of
    `product_case`, which a statement's other words do not change."""
    facts = list(facts)
    heads = sorted({h for f in facts for h in f.section})
    text = "\n".join([f.statement for f in facts] + heads)
    low = text.lower()
    out = set()
    for name in {n for n in names if " " in n}:
        n, at = name.lower(), 0
        while (at := low.find(n, at)) >= 0:
            seen = text[at:at + len(n)]
            if seen != name and not (text[at - 1:at].isalnum() or text[at + len(n):at + len(n) + 1].isalnum()):
                out.add(seen)
            at += len(n)
    return sorted(out)


def headings_in_speech(sentences: list[str], headings: Iterable[str], statements: str) -> list[str]:
    """Sentences holding a heading of four words or more (not a question: an FAQ's heading
    "What does a paper statement cost?" is what customers ask), a fact id or a pasted
    catalog cell."""
    out = []
    heads = [h for h in headings if len(h.split()) >= 4 and h.lower() not in statements and not h.endswith("?")]
    for s in sentences:
        low = s.lower()
        if re.search(r"\b[a-z_]+\.[a-z0-9-]+\.[0-9a-f]{10}\b", s) or re.search(r"\b[A-Z][\w'-]*(?: [A-Z][\w'-]*)* \u2014 [A-Z][^:.!?]{1,50}: [$\u20ac\u00a3]?\d", s):
            out.append(s)
            continue
        for h in heads:
            if h.lower() not in low:
                continue
            at = low.find(h.lower())
            if CLAUSE_HEADING.search(h) and not s.startswith(h) and s[at:at + 1].islower() and \
                    not re.search(r"\b(?:the|a|an|this|that|our|your|my|its)\s+$", low[:at]):
                # a heading that is a clause ("How the discount works") is what people say
                # inside their sentence ("Can someone confirm how the discount works?"); used
                # as a noun ("the how your deposits create ... for reforestation") or with its
                # capital mid-sentence, it is a pasted heading
                continue
            out.append(s)
            break
    return out


def _case_cell(line: str, after: str, names: set[str]) -> bool:
    """Whether `line` is "heading: name", the name whole or running on into `after` (a cell
    wrapped in a PDF's text layer: "fee type: foreign atm" / "withdrawal fee ...")."""
    m = re.match(r"^[\w ]{1,30}: (.+)$", line)
    if not m:
        return False
    head = m.group(1).split()
    more = head + after.split()
    return any(" ".join(more[:k]) in names for k in range(len(head), len(more) + 1))


def duplicated_lines(text: str, window: int = 12, names: Iterable[str] = ()) -> list[str]:
    """Lines of four words or more printed twice, verbatim, within `window` lines (page
    numbers and running footers differ by their number, so they are not duplicates; a line
    on three pages or more of a file is its running chrome, not a bullet, a wordmark in
    capitals is not a bullet, and neither is a line that is only a name or only names in
    table cells: a product heading each block of a schedule's columns, a dashboard table's
    header row of products over each block of its lines). Lines are compared whole as they
    were written, not as they wrapped: a line that does not end a sentence and the lines in
    lower case after it are one line (two clauses of a PDF that end in the same words wrap to
    the same last line; two table cells "Item: APY boost with linked Bronze Savings" and
    "... linked Gold Plus Savings" wrap to the same first line). A case cell of a table, a
    name after its heading ("Item: Paper statement fee", "Fee type: Foreign ATM / Withdrawal
    Fee" wrapped), is a name too: a conditions table lists one case under several rules."""
    raws: list[str] = []
    for x in (x.strip() for x in text.split("\n")):
        if raws and raws[-1] and x[:1].islower() and not re.search(r"[.!?:;]$", raws[-1]):
            raws[-1] += " " + x
        else:
            raws.append(x)
    lines = [" ".join(x.lower().split()) for x in raws]
    chrome = {a for a, n in Counter(lines).items() if n >= 3}
    only_name = {" ".join(n.lower().split()) for n in names}
    out = []
    for i, a in enumerate(lines):
        raw = raws[i]
        if len(re.findall(r"[a-z]{2,}", a)) < 4 or re.search(r"\bpage \d+", a) or a in chrome or raw.isupper() or \
                a in only_name or all(c.strip() in only_name for c in a.split(" | ")):
            continue
        if _case_cell(a, lines[i + 1] if i + 1 < len(lines) else "", only_name):
            continue  # a table's case cell, "Item: Paper statement fee", wrapped or not: a name under its heading
        if a in lines[i + 1:i + 1 + window]:
            out.append(raw)
    return out


def fact_steps(sentences: list[str], facts: list[Fact]) -> list[str]:
    """Boxes that state facts (a catalog value, a rule) as sentences: a flowchart's boxes
    are actions and decisions. A procedure step's own words in a box are a step, so only
    facts of other kinds count."""
    out = []
    facts = [f for f in facts if f.kind != FactKind.procedure_step]
    for s in sentences:
        if len(s.split()) < 9:
            continue
        words = set(L.content_words(s))
        for f in facts:
            cw = set(L.content_words(f.statement))
            if cw and len(cw & words) * 10 >= len(cw) * 7:
                out.append(s)
                break
    return out if len(out) >= 2 else []


def contradictions(text: str) -> list[str]:
    low = text.lower().replace("\u2019", "'")
    return [f"{a} / {b}" for a, b in CONTRADICTIONS if re.search(a, low) and re.search(b, low)]


def brand_internals(text: str) -> list[str]:
    low = text.lower()
    return [_snip(low, m.start(), m.end()) for m in
            re.finditer(r"name used in customer communications|\bbrand map\b|\bgeneric term\b", low)]


# words that never stand twice in a row ("log in in the app", "what it is is", "that that" can)
_FUNCTION_WORDS = ("the", "a", "an", "to", "of", "for", "my", "your", "our", "their", "and", "at", "with", "by", "from")
_DOUBLED = re.compile(r"(?<![\w'-])(" + "|".join(_FUNCTION_WORDS) + r")(?=[ \t]+(" + "|".join(_FUNCTION_WORDS) +
                     r")\b)", re.I)


def doubled_words(text: str) -> list[str]:
    """A function word twice in a row on one line, "the the", "The the" ("that that", "had had"
    are English; "waive the / The Nonprofit Savings" is two lines or two columns read as one)."""
    return [_snip(text, m.start(), m.end() + len(m.group(2)) + 1) for m in _DOUBLED.finditer(text)
            if m.group(2) == m.group(1).lower()]


_POSSESSIVE_ARTICLE = re.compile(r"\b(my|your|our|their)\s+(the|a|an)\b", re.I)


def possessive_articles(text: str) -> list[str]:
    """A possessive before an article: "my the statement", "your a card"."""
    return [_snip(text, m.start(), m.end()) for m in _POSSESSIVE_ARTICLE.finditer(text)]


_SINGULAR_UNIT = re.compile(r"(?<![\w.,$-])(?:1|one)\s+(dollars|euros|pounds|cents|days|hours|minutes|seconds|weeks|"
                            r"months|years|points|transactions|withdrawals|bags|nights)\b", re.I)


def singular_units(text: str) -> list[str]:
    """One of a unit in the plural: "1 dollars", "one days" ("1.5 days", "21 days" are fine)."""
    return [_snip(text, m.start(), m.end()) for m in _SINGULAR_UNIT.finditer(text)]


# Set phrases a word swap breaks: the phrase, and what must come before or after it.
_IDIOMS = [re.compile(r"(?<!\bfree )\bof charge\b", re.I),            # "no-cost of charge", "at no charge of charge"
           re.compile(r"\bfree of cost\b|\bat no cost of\b", re.I)]


def mangled_idioms(text: str) -> list[str]:
    low = text.replace("\u2019", "'")
    return [_snip(low, m.start(), m.end()) for rx in _IDIOMS for m in rx.finditer(low)]


def _snip(text: str, s: int, e: int, pad: int = 50) -> str:
    return " ".join(text[max(0, s - pad):e + pad].split())


# --- one file ---------------------------------------------------------------------------------
def lint_text(text: str, kind: str, modality: str, *, names: Iterable[str] = (), headings: Iterable[str] = (),
              facts: Optional[list[Fact]] = None, path: str = "", strict: Iterable[str] = (),
              mentioned: Optional[list[Fact]] = None, policy: Iterable[str] = (),
              policy_slips: Iterable[str] = (), currency: str = "USD", policy_frames: Iterable[str] = ()) -> list[Hit]:
    """The hits of one file. `facts`: the facts it carries; `mentioned`: every fact it
    mentions, wrong values included (a heading inside one of their statements is that fact's
    own words, not a heading pasted into speech); `policy`: the forms the policy writes its
    names in (`policy_forms`: a name written as the policy writes it is not a lost capital);
    `policy_slips`: the disagreements the policy itself writes (`policy_slips`: its own grammar
    is carried over, not a writer's slip); `policy_frames`: the attribute names the policy
    itself says as "has a <attribute> of <value>" (`policy_frames`)."""
    family = kind.split("/")[0]
    sentences = L.units(text, modality)
    body = "\n".join(sentences)
    hits: list[Hit] = []

    def add(lint: str, found: list[str]) -> None:
        hits.extend(Hit(lint, path, kind, x) for x in dict.fromkeys(found))

    heard = modality in HEARD  # speech recognition: free words are not what was written
    if kind in CONTROLLED_KINDS:
        add("aside_in_controlled", asides(body))
    if not heard:
        add("agreement", agreement(body, allowed=policy_slips))
        add("product_case", product_case(body, names, strict, ocr=modality in ("png", "scan"), policy=policy))
        add("doubled_word", doubled_words(body))
        if modality != "png":  # OCR reads a picture's card columns as one line ("... is our membership —
            # our | the app." side by side): a seam, not a phrase anybody wrote
            add("possessive_article", possessive_articles(body))
        add("singular_unit", singular_units(body))
        add("mangled_idiom", mangled_idioms(body))
    if family in SPEECH_FAMILIES and not heard:
        statements = " ".join(f.statement.lower() for f in (facts or []) + (mentioned or []))
        add("heading_in_speech", headings_in_speech(sentences, headings, statements))
        add("contradicting_replies", contradictions(body))
    if modality in ("png", "pdf", "scan"):
        add("duplicated_bullet", duplicated_lines(text, names=names))
    if kind == "visuals/flowchart":
        add("fact_steps", fact_steps(sentences, facts or []))
    add("brand_internals", brand_internals(text))
    if not heard:  # a recogniser's guesses ("have you of twelve day") are no wording
        add("attribute_frame", [snip for _name, snip in frames_in(text, currency, policy_frames)])
    return hits


# "has a monthly maintenance charge of $12": an attribute said through its name and a value
_ATTRIBUTE_FRAME = re.compile(r"\b(?:has|have) (an? )?((?:[a-z-]+ ){0,5}[a-z-]+) of ", re.IGNORECASE)
# an attribute name in the plural takes no article ("has purchases allowed per billing cycle of
# one purchase"); without one, words that start or join ordinary phrases are no attribute name
# ("has two bikes and a deposit of $50", "has been a member of")
_NOT_NAME = {"a", "an", "the", "and", "or", "but", "to", "for", "with", "no", "some", "any", "its", "their", "your",
             "our", "my", "his", "her", "been", "not", "never", "all", "one", "two", "three", "four", "five", "six",
             "seven", "eight", "nine", "ten", "many", "several", "lots", "plenty", "most", "each", "both", "this",
             "that", "these", "those", "already", "also", "only", "just"}


def frames_in(text: str, currency: str = "USD", allowed: Iterable[str] = ()) -> list[tuple[str, str]]:
    """(attribute name, snippet) of every "has a <attribute name> of <value>" in `text` (a
    value `facts.values` reads right after "of"). `allowed`: the attribute names the policy
    itself says that way (`policy_frames`: "has a draw period of 10 years" quoted from the
    policy is its own wording)."""
    allowed = {a.lower() for a in allowed}
    out = []
    for m in _ATTRIBUTE_FRAME.finditer(text):
        name = m.group(2).lower()
        if name in allowed or (not m.group(1) and _NOT_NAME & set(name.split())):
            continue
        if any(v[4] == 0 for v in find_values(text[m.end():m.end() + 40], currency)):
            out.append((name, _snip(text, m.start(), m.end() + 20)))
    return out


def policy_frames(facts: Iterable[Fact], currency: str = "USD") -> list[str]:
    """The attribute names the policy's own statements put in the frame."""
    return sorted({name for f in facts for name, _snip in frames_in(f.statement, currency)})


def attribute_frames(texts: Iterable[str], currency: str = "USD", allowed: Iterable[str] = ()) -> dict:
    """How often the files voice an attribute as "has a <attribute name> of <value>"
    (`frames_in`): the count, the files with one, and the most common attribute names. Each
    is also a blocking hit (`attribute_frame`)."""
    names: Counter = Counter()
    files = 0
    allowed = list(allowed)
    for text in texts:
        found = [name for name, _snip in frames_in(text, currency, allowed)]
        files += bool(found)
        names.update(found)
    return {"count": sum(names.values()), "files": files, "top": names.most_common(10)}


# --- a bundle's worth of files -------------------------------------------------------------------
def lint_files(plan: EvidencePlan, factset: FactSet, extractions: dict[str, Extraction], pack,
               pool=None, scratch: Optional[Path] = None, cache: Optional[Path] = None) -> dict:
    """extractions: artifact id -> the delivered file's text (audits.extraction: the build's
    extractions, so nothing is OCR'd or transcribed twice). Files are read on `pool` (chunks of
    files, `audits.parallel`); the report does not depend on it. With a `cache` folder each
    file's reading is kept under a key of everything it depends on (`_lint_keys`) and loaded
    when unchanged."""
    ctx = {"by_id": factset.by_id(),
           "names": sorted(n for n in BuiltinWriter(pack).names() if " " in n),
           "strict": {pack.brand.company, *pack.brand.products.values()} |
                     ({pack.brand.short_name} if pack.brand.short_name else set()),
           "headings": sorted({s for f in factset.facts for s in f.section}),
           "policy": policy_forms(factset.facts, BuiltinWriter(pack).names()),
           "policy_slips": policy_slips(factset.facts),
           "currency": pack.info.currency,
           "policy_frames": policy_frames(factset.facts, pack.info.currency),
           "labels": L.name_words(factset.facts),
           "running": {k: L.running_lines([extractions[s.id].text for s in plan.artifacts if s.kind == k])
                       for k in {s.kind for s in plan.artifacts} if registry.get(k).modality in L.SITE_MODALITIES}}
    items = [(spec, extractions[spec.id].text) for spec in plan.artifacts]
    keys = _lint_keys(ctx, items) if cache is not None else []
    per_file = cached_map(_lint_one, ctx, items, [len(t) for _, t in items], keys,
                          Path(cache) / LINT_CACHE if cache is not None else None, pool, scratch)
    hits: list[Hit] = []
    distinct = L.Distinct()
    leads: Counter = Counter()
    fact_sentences = voiced_total = 0
    voiced_runs: list[dict] = []
    for f_hits, f_units, f_leads, f_sentences, f_voiced, f_runs in per_file:
        hits += f_hits
        distinct.add(f_units)
        leads.update(f_leads)
        fact_sentences += f_sentences
        voiced_total += f_voiced
        voiced_runs += f_runs
    by_lint = Counter(h.lint for h in hits)
    top_lead = leads.most_common(1)[0] if leads else ("", 0)
    return {
        "schema_version": LINTS_SCHEMA_VERSION, "domain": plan.domain, "variant": plan.variant,
        "summary": {"files": len(plan.artifacts), "hits": len(hits), "by_lint": dict(sorted(by_lint.items())),
                    "voiced_renditions": voiced_total, "voiced_with_policy_run": len(voiced_runs)},
        "measures": {"distinct_sentences": distinct.summary(20),
                     "lead_ins": {"fact_sentences": fact_sentences, "most_common": top_lead[0],
                                  "most_common_share": round(top_lead[1] / fact_sentences, 4) if fact_sentences else 0,
                                  "top": leads.most_common(10)},
                     "attribute_frames": attribute_frames((text for spec, text in items
                                                           if registry.get(spec.kind).modality not in HEARD),
                                                          pack.info.currency, ctx["policy_frames"])},
        "hits": [asdict(h) for h in hits],
        "voiced_runs": voiced_runs,
    }


LINT_CACHE = "lints-v1"  # folder of kept per-file readings under the cache


def _lint_keys(ctx: dict, items: list[tuple]) -> list[str]:
    """One key per file: the code of this module and what it imports (`code_fingerprint`),
    the domain-wide context (names, brand terms, headings, label words, the kind's running
    lines), the kind's modality, the file's plan entry (path, kind, facts with their roles and
    renditions, distractors), every fact it names (whole) and its text."""
    base = content_hash({"code": code_fingerprint("audits.lints"), "names": list(ctx["names"]),
                         "strict": sorted(ctx["strict"]), "headings": list(ctx["headings"]),
                         "policy": sorted(ctx["policy"]), "policy_slips": ctx["policy_slips"],
                         "currency": ctx["currency"], "policy_frames": ctx["policy_frames"],
                         "labels": [sorted(w) for w in ctx["labels"]]})
    running = {k: content_hash(sorted(v)) for k, v in ctx["running"].items()}
    digest: dict[str, str] = {}

    def fact(fid: str) -> str:
        if fid not in digest:
            f = ctx["by_id"].get(fid)
            digest[fid] = content_hash(f) if f is not None else "-"
        return digest[fid]

    out = []
    for spec, text in items:
        out.append(sha256_hex("\0".join([
            base, running.get(spec.kind, ""), registry.get(spec.kind).modality,
            content_hash(spec), *[fact(i) for i in spec.mentioned_ids], sha256_hex(text)])))
    return out


def _lint_one(ctx: dict, spec, text: str) -> tuple:
    """One file: (hits, sentences for the distinct measure, lead-ins of its fact sentences,
    fact sentences found, voiced renditions, voiced renditions sharing a run)."""
    by_id = ctx["by_id"]
    t = registry.get(spec.kind)
    carried = [by_id[m.fact_id] for m in spec.facts if m.fact_id in by_id]
    mentioned = [by_id[i] for i in spec.mentioned_ids if i in by_id]
    hits = lint_text(text, spec.kind, t.modality, names=ctx["names"], headings=ctx["headings"], facts=carried,
                     path=spec.path, strict=ctx["strict"], mentioned=mentioned, policy=ctx["policy"],
                     policy_slips=set(ctx["policy_slips"]), currency=ctx["currency"],
                     policy_frames=ctx["policy_frames"])
    units = L.units(text, t.modality, ctx["running"].get(spec.kind, frozenset()))
    canonical = [by_id[i].statement for i in spec.quoted_ids if i in by_id]
    leads: list[str] = []
    sentences = voiced = 0
    runs: list[dict] = []
    sents = L.sentences(text) if spec.facts else []
    for m in spec.facts:
        f = by_id.get(m.fact_id)
        if f is None:
            continue
        sent = L.fact_sentence(text, f, sents=sents)
        if sent:
            sentences += 1
            lead = L.lead_in(sent, f)
            if lead:
                leads.append(lead)
        if m.rendition == "voiced" and t.modality not in SPEECH_MODALITIES and t.modality != "png":
            voiced += 1
            found = L.shared_runs(f.statement, text, exempt=canonical, names=ctx["labels"])
            if found:
                runs.append({"fact_id": f.id, "path": spec.path, "run": found[0]})
    return hits, units, leads, sentences, voiced, runs


def failures(report: dict) -> list[str]:
    """Why the lint gate fails (empty when it passes): every hit, every voiced rendition
    that shares a run with its policy statement."""
    out = [f"{h['path']}: {h['lint']}: {h['text']!r}" for h in report["hits"]]
    out += [f"{v['path']}: voiced rendition of {v['fact_id']} shares the policy's words {v['run']!r}"
            for v in report["voiced_runs"]]
    return out


def write_report(report: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
