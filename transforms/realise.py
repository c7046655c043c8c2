"""The realiser: a fact worded for a speaker, an audience and a genre.

A fact is not re-worded by editing its statement string. It is first read into parts
(`read`): a catalog cell becomes (row, column, value, measure); a policy sentence becomes a
main clause (subject, modal, predicate) with its condition clauses (leading "If ...",
trailing "... when ..."), a second clause after ";", its typed values. The realiser then
writes those parts in one of several frames:

- plain, condition first, consequence first;
- question and answer ("How long is the profile locked after three failed attempts? Thirty
  minutes.") and yes/no ("Can TripGuard be added later? No: ...");
- example-led ("Say a delay lasts six hours: TripGuard then pays ...", or grounded in the
  customer's own record);
- contrast (two clauses swapped around "but").

Values take another surface form the matcher reads back (numeric, spelled out, another unit:
"72 hours" as "three days"). The register decides persons and tone: an agent talking to a
customer says "you" and "we", a manager writes to staff, a controlled document (manual,
knowledge base, rate sheet, memo) stays formal, in the third person, with no contractions,
asides or hedges.

**Voiced renditions share no run of six words with the policy statement**: the realiser
checks every draft and keeps re-wording (lexical alternatives, determiners, contractions,
clause order) until none is left; `voiced` raises `RealiseError` rather than return a draft
that still shares a run. Every rendition is also checked against the recovery rule (its
values in an accepted form, enough anchor terms, or most content words for a fact without
values), so what the realiser writes, the matcher finds.
"""
from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Callable, Optional

from facts.models import Fact, Slot, SlotType, replace_value
from facts.surface import int_to_words, surface_forms, unit_words
from facts.values import slot_matches

from .grammar import CLAUSE_HEADING, SUBORDINATORS, capitalise, finish, fix_articles, needs_an

if TYPE_CHECKING:  # pragma: no cover
    from .situations import Customer, Rec


# Spoken asides and hedges: fine in talk, never in a controlled document (the lints check
# delivered files for them; the LLM writer's drafts are held to the same rule).
ASIDES = ("as it happens", "in practice", "mind you", "to be clear", "as far as i know", "basically",
          "for what it's worth", "in our experience", "to be honest", "if i remember rightly", "i guess")
HEDGES = ("i think", "i believe", "probably", "maybe", "perhaps", "i'm not sure", "as far as i know",
          "if i recall", "i suppose", "apparently")


class RealiseError(ValueError):
    """No wording of a fact met the voiced or recovery rule (names the fact)."""


@dataclass(frozen=True)
class Register:
    """Who speaks, to whom, in what kind of record."""

    speaker: str = "agent"      # agent | manager | colleague | customer | document
    audience: str = "customer"  # customer | staff | public
    genre: str = "chat"         # chat | email | call | team_chat | meeting | ticket | manual | kb | memo | table | slide

    @property
    def controlled(self) -> bool:
        """A controlled document: formal, third person, no asides, hedges or contractions."""
        return self.genre in ("manual", "kb", "memo", "table", "slide")

    @property
    def casual(self) -> bool:
        return self.genre in ("chat", "team_chat", "call", "meeting")

    @property
    def to_customer(self) -> bool:
        return self.audience == "customer" and self.speaker != "customer"

    @property
    def staff_talk(self) -> bool:
        return self.audience == "staff" and not self.controlled


REGISTERS = {
    "chat": Register("agent", "customer", "chat"), "call": Register("agent", "customer", "call"),
    "customer_email": Register("agent", "customer", "email"), "staff_email": Register("manager", "staff", "email"),
    "team_chat": Register("manager", "staff", "team_chat"), "meeting": Register("manager", "staff", "meeting"),
    "ticket": Register("manager", "staff", "ticket"), "manual": Register("document", "staff", "manual"),
    "kb": Register("document", "public", "kb"), "memo": Register("manager", "staff", "memo"),
    "table": Register("document", "staff", "table"), "slide": Register("document", "staff", "slide"),
}


# --- reading a fact ---------------------------------------------------------------------------
_CELL = re.compile(r"^(?P<row>.+?) \u2014 (?P<col>.+?): (?P<val>.+?)\.?$")
_LEAD = re.compile(r"^(?P<conj>If|When|Whenever|Once|After|Before|Unless|Until|While|Where|Within|Outside|During|"
                   r"Except for|For|On|In|At|Provided(?: that)?|As long as|Only if|Between|Without|With)\b"
                   r"(?P<cond>[^,]{3,}?),\s+(?P<main>.+)$")
_TRAIL = re.compile(r"^(?P<main>.{12,}?)(?:,)?\s+(?P<conj>if|when|whenever|unless|once|as long as|provided(?: that)?|"
                    r"only if|after|before|until|while|so that|because|as soon as)\s+(?P<cond>.{4,})$")
_MODALS = [  # (pattern, key) tried in order at the start of a predicate
    (r"must never", "must_never"), (r"must not", "must_not"), (r"may never", "must_never"), (r"must only", "must_only"),
    (r"must", "must"), (r"may not", "may_not"), (r"may only", "may_only"), (r"may", "may"),
    (r"cannot|can not|can't", "cannot"), (r"can only", "can_only"), (r"can never", "must_never"), (r"can", "can"),
    (r"should not|shouldn't", "should_not"), (r"should", "should"), (r"will not|won't", "will_not"),
    (r"will", "will"), (r"is never", "is_never"), (r"are never", "is_never"), (r"is not|isn't", "is_not"),
    (r"are not|aren't", "is_not"), (r"is only", "is_only"), (r"are only", "is_only"), (r"is", "is"), (r"are", "is"),
    (r"does not|doesn't", "does_not"), (r"do not|don't", "does_not"), (r"has to", "must"), (r"have to", "must"),
    (r"needs to", "must"), (r"need to", "must"), (r"never", "never"),
]
_MODAL_RE = [(re.compile(rf"^(?:{p})\b\s*", re.I), k) for p, k in _MODALS]
_IMPERATIVE = re.compile(r"^(Transfer|Confirm|Ask|Verify|Check|Email|Record|Authenticate|Restart|Escalate|Offer|Tell|"
                         r"Explain|Quote|Refund|Apply|Send|Cancel|Issue|Add|Remove|Update|Open|Close|Read|Collect|"
                         r"Process|Review|Request|Direct|Advise|Inform|Let|Make|Use|Do|Never|Always|Keep|Log|Note|"
                         r"Flag|Share|Suggest|Walk|Reset|Re-send|Resend|Look|Give|Waive|Place|Submit|Call|"
                         r"Mention|Repeat|Say|Book|Rebook|Change|Reissue|Credit|Route|Arrange|Schedule|Decline|Deny|"
                         r"Approve|Accept|Reject|Return|Replace|Order|Enroll|Enrol|Register|Set|Run|Complete|Take|"
                         r"Start|Stop|Skip|Count|Follow|Help|Contact|Notify|Remind|Warn|Document|Refresh|Ensure|"
                         r"Provide|Obtain|Gather|Validate|Enter|Select|Click|Tap|Navigate|Wait|Try|Retry|Locate|"
                         r"Search|Capture|Inspect|Attach|Upload|Enable|Disable|Activate|Deactivate|Freeze|Unfreeze|"
                         r"Lock|Unlock)\b")
_CUSTOMER_SUBJ = re.compile(r"^(?:the|a|an|every|each|any)?\s*(?:booking\s+)?(customer|customers|passenger|passengers|"
                            r"member|members|applicant|applicants|account holder|account holders|cardholder|"
                            r"cardholders|client|clients|shopper|shoppers|subscriber|subscribers|traveller|travellers|"
                            r"traveler|travelers)$", re.I)
_STAFF_SUBJ = re.compile(r"^(?:the|a|an|every|each|any)?\s*(?:[A-Z][\w-]* )*(agent|agents|staff|staff members?|"
                         r"employee|employees|representative|representatives|teammate|teammates|we)$", re.I)


@dataclass
class Clause:
    subj: str = ""
    aux: str = ""          # modal key ("" = a lexical verb starts the predicate)
    pred: str = ""         # predicate after the modal
    imperative: bool = False

    @property
    def plural(self) -> bool:
        return _is_plural(self.subj)


@dataclass
class Reading:
    """A fact read into parts. `cell` for catalog cells; else clauses and conditions."""

    fact: Fact
    cell: Optional[dict] = None
    main: Optional[Clause] = None
    lead: Optional[tuple[str, str]] = None   # ("If", "a customer cancels")
    trail: Optional[tuple[str, str]] = None  # ("when", "a delay lasts 6 hours")
    second: Optional["Reading"] = None       # the clause after ";"
    text: str = ""                           # the statement without its final stop
    table: Optional[dict] = None             # a table row read as prose (`cell_prose`): its cell parts
    faq: str = ""                            # an FAQ's question ("Do I need to ...?"); the rest reads its answer


_HEAD_STOP = {"per", "for", "on", "of", "to", "at", "in", "by", "that", "above", "below", "before", "after", "with",
              "from", "under", "over", "between", "within"}


_TOPIC_LABEL = re.compile(r"^(?P<label>[^:]{2,60}):\s+(?=[A-Z])")


def _topic_label(subj: str) -> tuple[str, str]:
    """A subject read with the label before it ("Operator surcharges: The ATM owner") as
    (label, subject): the label names the topic, the clause's subject is what follows; ("",
    subj) when there is none. A question asks about the subject ("can the ATM owner charge
    ...?", never "can operator surcharges: The ATM owner ...")."""
    m = _TOPIC_LABEL.match(subj.strip())
    return (m.group("label"), subj.strip()[m.end():]) if m else ("", subj)


def _number_words(noun: str) -> dict[str, str]:
    """Words that agree with `noun` in a frame: {is}, {comes}, {applies}, {it}, and the
    article {a} ("a " for a singular noun, none for a plural: "free employee cards")."""
    if _is_plural(noun):
        return {"is": "are", "comes": "come", "applies": "apply", "it": "they", "a": ""}
    return {"is": "is", "comes": "comes", "applies": "applies", "it": "it", "a": "a "}


def _is_plural(subj: str) -> bool:
    s = subj.strip().lower()
    if not s:
        return True
    if s in ("we", "you", "they") or s.split()[-1] in ("we", "you", "they"):  # "to collect a bill you"
        return True
    if s.split()[-1] in ("it", "he", "she"):  # "Endorse the check and note that it": never "it are"
        return False
    if re.search(r"\band\b", s) and not re.match(r"^(each|every|any)\b", s):
        return True
    first, _, rest = s.partition(" ")  # a participle first is an adjective ("financed devices")
    head = (first + " " + re.split(r"\b(?:of|with|in|on|for|that|who|which|from|under|to|by|at|made|paid|sent|held|"
                                   r"bought|[a-z]+ed)\b", rest)[0]).strip().split()
    if not head:
        return False
    w = head[-1]
    if re.match(r"^(each|every|any|a|an|one)\b(?!-)", s):
        return False
    return w.endswith("s") and not w.endswith(("ss", "us", "is", "'s")) and w not in ("this", "plus", "news", "series",
                                                                                        "gas", "bus", "class")


_UNAMBIGUOUS = {"Transfer", "Confirm", "Ask", "Verify", "Email", "Authenticate", "Restart", "Escalate", "Tell",
                "Explain", "Refund", "Reseat", "Make", "Send", "Offer", "Never", "Always", "Do", "Let", "Suggest",
                "Advise", "Inform", "Quote", "Read", "Pull", "Set", "Reset", "Collect", "Remind", "Warn", "Notify",
                "Ensure", "Refresh", "Obtain", "Retry", "Navigate"}
_DET_NEXT = re.compile(r"^\w+\s+(the|a|an|that|whether|if|your|their|its|it|them|this|these|each|every|any|all|"
                       r"to|with|for|on|in|out|up|down|back|off|one|both|who|what|how|why|when|so)\b", re.I)


# Quoted words are someone's verbatim words (a script an agent reads out, a message on a
# screen): a re-wording never splits a clause inside them nor swaps a word in them ("'We may be
# experiencing a brief system issue'" once became "'We is allowed to be experiencing a brief
# system give'"). A single quote opens after a space or colon and closes before a space or
# stop, so an apostrophe ("customer's") opens nothing. A bracketed placeholder of the source
# ("[value not available]") is kept as printed: it once became "[value not on offer]".
_QUOTED = re.compile(r"\"[^\"]+\"|\u201c[^\u201d]+\u201d|(?:(?<=^)|(?<=[\s:(]))'[^']+'(?=[\s.,;:!?)]|$)"
                     r"|\u2018[^\u2019]+\u2019(?=[\s.,;:!?)]|$)"
                     r"|\[[^\]\n]{1,80}\]")  # a placeholder the source prints ("[value not available]"), verbatim


def quoted_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _QUOTED.finditer(text)]


def _in_quotes(text: str, start: int, end: Optional[int] = None) -> bool:
    """Whether [start, end) touches a quoted span of `text`."""
    end = start + 1 if end is None else end
    return any(a < end and start < b for a, b in quoted_spans(text))


def outside_quotes(text: str, fn: Callable[[str], str]) -> str:
    """`fn` applied to the text between quoted spans only."""
    out, last = [], 0
    for a, b in quoted_spans(text):
        out += [fn(text[last:a]) if a > last else "", text[a:b]]
        last = b
    out.append(fn(text[last:]) if last < len(text) or not out else "")
    return "".join(out)


def _split_clause(text: str) -> Clause:
    if re.match(r"^(?:please|do not|don't)\b", text, re.I):
        return Clause("", "", text)  # a request to the reader ("please don't hesitate ...") has no subject "please"
    m = _IMPERATIVE.match(text)
    # a noun compound before its verb is a subject ("Transfer fees for this account tier are ...",
    # never the instruction "the agent transfers charges ... are")
    compound = re.match(r"^\w+\s+(\w+)\b", text)
    noun_subject = compound is not None and compound.group(1).lower() in _NOT_VERBS and \
        re.search(r"\s(?:is|are)\s", text) is not None and m is not None and m.group(1).lower() not in (
            "check", "verify", "confirm", "note", "document", "make", "tell", "explain", "ask", "advise", "inform")
    if m and (m.group(1) in _UNAMBIGUOUS or _DET_NEXT.match(text)) and not noun_subject and \
            not re.match(r"^(Never|Always)\s+\w+\s+(is|are|may|can|must)\b", text):
        return Clause("", "", text, imperative=True)
    words = text.split(" ")
    lex = _lexical_split(text)
    for i in range(1, min(len(words), 16)):
        rest = " ".join(words[i:])
        at = len(text) - len(rest)
        for rx, key in _MODAL_RE:
            m = rx.match(rest)
            if m and not _in_quotes(text, at, at + m.end()):
                subj = " ".join(words[:i])
                if key == "is" and re.search(r"\b(that|who|which)$", subj, re.I):
                    continue
                if lex is not None and len(lex.subj.split()) < i:
                    return lex  # a verb came first: "the agent tells the customer that a transfer is ..."
                return Clause(subj, key, rest[m.end():])
    return Clause("", "", text)


def _lexical_split(text: str) -> Optional[Clause]:
    """'TripGuard reimburses up to $150 ...' -> subject 'TripGuard', predicate 'reimburses ...':
    the first third-person verb after the subject's noun phrase (not one inside a relative
    clause: 'a bag that weighs 51 lb costs ...')."""
    words = text.split(" ")
    rel = False
    for i in range(1, min(len(words), 14)):
        w = words[i]
        prev = words[i - 1].lower()
        if prev in ("that", "who", "which"):
            rel = True
            continue
        if not re.fullmatch(r"[a-z]+(?:s|es)", w) or w in _NOT_VERBS:
            continue
        if rel:  # the relative clause's own verb came earlier; this one is the main verb
            rel = False
        subj = " ".join(words[:i])
        if _in_quotes(text, len(subj) + 1, len(subj) + 1 + len(w)):
            continue
        if subj.lower().split()[-1] in ("of", "the", "a", "an", "to", "for", "with", "and", "or", "in", "on", "by"):
            continue
        return Clause(subj, "", " ".join(words[i:]))
    return None


_NOT_VERBS = {"is", "was", "has", "does", "this", "its", "plus", "less", "unless", "across", "always", "as", "us", "yes",
              "business", "process", "access", "days", "hours", "months", "years", "weeks", "minutes", "fees", "bags",
              "cards", "items", "orders", "points", "miles", "lines", "passes", "rates", "terms", "accounts", "loans",
              "customers", "passengers", "members", "agents", "payments", "refunds", "changes", "flights", "seats",
              "reservations", "bookings", "tiers", "cabins", "products", "plans", "devices", "claims", "returns",
              "charges", "transfers", "deposits", "withdrawals", "statements", "limits", "balances", "credits",
              "discounts", "rewards", "purchases", "transactions", "tickets", "details", "records", "others",
              "digits", "numbers", "services", "options", "methods", "requests", "notes", "steps", "cases", "times",
              "banks", "networks", "vendors", "merchants", "institutions", "users", "holders", "partners", "wires"}


def read_cell(fact: Fact) -> Optional[dict]:
    """A catalog cell's parts (row, col, val, row_attr, measure), or None for a fact that is
    not a table row ("Row — Column: value" with the row's condition)."""
    text = fact.statement.strip()
    text = text[:-1] if text.endswith(".") else text
    m = _CELL.match(text)
    if not (m and fact.conditions):
        return None
    row_attr = next((c.attribute for c in fact.conditions if c.attribute != "attribute"), "")
    return {"row": m.group("row"), "col": m.group("col"), "val": m.group("val"), "row_attr": row_attr,
            "measure": _measure(fact)}


# a two-column table's value column ("| Item | Value |"): its cells are key-value pairs
# ("Supported currencies — Value: 35."), the row naming what the value is
VALUE_COLUMNS = {"value", "values", "amount", "details", "detail", "description", "notes", "note", "figure",
                 "amount/calculation"}


def grid_slot(fact: Fact, c: Optional[dict]) -> Optional[Slot]:
    """The slot a grid cell shows: the value part holds exactly one of the fact's slots and
    at most four other words, no slot is in the row name, and the column is not a two-column
    table's value column; else None (`transforms.catalog.is_cell`)."""
    if c is None or not fact.slots or c["col"].strip().lower() in VALUE_COLUMNS:
        return None
    inval = [s for s in fact.slots if s.text in c["val"]]
    if len(inval) != 1 or any(s.text in c["row"] for s in fact.slots):
        return None
    rest = c["val"].replace(inval[0].text, " ")
    return inval[0] if len(re.findall(r"[A-Za-z]+", rest)) <= 4 else None


_PREFIXES = {"non", "pre", "post", "anti", "co", "re", "sub", "multi", "inter", "intra", "over", "under",
             "self", "ex", "semi", "mid", "cross", "out"}
_WH_HEAD = re.compile(r"^(how|why|what|when|where|which|who|whom|whose)\b", re.I)
# a cell that is a sentence of its own ("10% of interest is directed to ...", "You withdraw
# cash at a non-Rho ATM"), not a value ("Bars from none to full")
_CLAUSE_VERB = re.compile(r"\b(is|are|was|were|be|been|may|must|can|cannot|will|should|shall|do|does|did|has|have|"
                          r"had|[a-z]{3,}ed)\b|^(you|we|they|it|he|she|I|customers?|agents?)\b", re.I)
_ROW_VERB = re.compile(r"\b(must|is|are|be|was|were|can|may|will|earn|earns|get|gets|receive|receives|pay|pays|"
                       r"need|needs|have|has)\b", re.I)


def cell_prose(fact: Fact, c: dict) -> Optional[str]:
    """The sentence a table row says when a grid cannot show it as one figure (`grid_slot`
    is None), or None to keep reading it as a cell. Realised from its parts, a prose row
    came out as "the how your deposits create environmental impact for reforestation with a
    how your account contributes is 2 trees are planted ..." (the tau2 banking_knowledge
    documents: section headings and column headings that are phrases, not measures). So:
    - a two-column table's value row says what the row names: "The returned deposit fee is
      $17.50."; a row that ends in a verb or a preposition runs on: "Deposit must be made
      within 90 days.";
    - a row whose cell is prose says it about the row: "For carbon offsets from interest
      earnings, 10% of interest is directed to ..."; "For the international ATM withdrawal
      fee, match the fee date ...";
    - a value under a column that names a measure: "For out-of-network ATM fee
      reimbursements, the monthly inclusion is up to $32 ...", "For read_signal(), the output
      is bars from none to full".
    A row keyed by a figure (a worked example, a balance band) stays a cell: the figure is
    what the row is about."""
    row, col, val = c["row"].strip(), c["col"].strip(), c["val"].strip().rstrip(".")
    if not row or not val:
        return None
    if any(s.text and s.text in row for s in fact.slots) or re.search(r"\d", row):
        # a row keyed by a figure says what the figure is: "For a total score of 5-7, the
        # risk level is MEDIUM", "For a balance under $25,000 with the Business Gold ..."
        attr = c["row_attr"].strip()
        if not attr or attr.lower() in ("item", "product", "name", "row") or len(attr.split()) > 3:
            return None
        attr, col = _plain_label(attr), col.rstrip("?").strip()
        v = _mid_sentence(val)
        if re.match(r"^(under|over|above|below|up|less|more|at|from|between)\b", row, re.I):
            row = f"{'an' if needs_an(attr) else 'a'} {attr} {row[:1].lower() + row[1:]}"
        else:
            row = f"{'an' if needs_an(attr) else 'a'} {attr} of {row}"
        if re.match(r"^(with|without|for|on|at|in|by)\b", col, re.I):
            return f"For {row} {col[:1].lower() + col[1:]}, {v}"
        return f"For {row}, the {_plain_label(col)} is {v}"
    words = row.split()
    if not (len(words[0]) > 1 and re.search(r"[A-Z]", words[0][1:])) and \
            not any(re.search(r"[A-Z]", w) for w in words[1:]):
        # a label in sentence case ("Returned deposit fee") is ordinary words mid-sentence; a
        # row with any other capital ("Foreign ATM Withdrawal (International)", "Standard APR
        # (after intro)") is written as the policy writes it: the pack keeps such rows as
        # names, whose case the product_case lint holds every file to
        row = row[:1].lower() + row[1:]
        words = row.split()
    rest = val
    for s in fact.slots:
        if s.text:
            rest = rest.replace(s.text, " ")
    long = sum(1 for w in rest.split() if re.search(r"[A-Za-z]", w) and not re.search(r"\d", w)) > 4
    v = _mid_sentence(val)
    if col.lower() in VALUE_COLUMNS and not long:
        if _ROW_VERB.search(row) or row.split()[-1].lower() in _HEAD_STOP:
            text = f"{row} {v}"
        else:
            the = "" if re.match(r"^(the|a|an|your|our|my)\b", row, re.I) or row[:1].isupper() and \
                len(words) > 1 and all(w[:1].isupper() for w in words) else "the "
            text = f"{the}{row} {'are' if _is_plural(words[-1]) else 'is'} {v}"
    elif _WH_HEAD.match(col) or _CLAUSE_VERB.search(v) or col.lower() in VALUE_COLUMNS:
        text = f"for {row}, {v}"
    elif long or not _WH_HEAD.match(col):
        text = f"for {row}, the {col[:1].lower() + col[1:]} is {v}"
    return text[:1].upper() + text[1:]


def _mid_sentence(val: str) -> str:
    """A cell's text after "For X, ...": its first letter lower-cased only when the first
    word is a closed-class word ("You used ...", "This Rho fee ...", "Up to $32"); any other
    capitalised word may be a name ("Rho fee") and keeps its case."""
    first = (val.split() or [""])[0]
    if first.lower() in _STOP | {"up", "yes", "no", "cannot", "only", "each", "every", "none"} and first != "I":
        return val[:1].lower() + val[1:]
    return val


def _plain_label(label: str) -> str:
    """A heading's words mid-sentence: "Required Protocol" -> "required protocol"; acronyms
    and words with inner capitals keep them ("USD-equivalent cash withdrawn", "APY")."""
    return " ".join(w if (len(w) > 1 and (w.isupper() or re.match(r"^[A-Z]{2}", w) or
                                          re.match(r"^[A-Za-z][a-z]*[A-Z]", w))) else w.lower()
                    for w in label.split())


_FAQ = re.compile(r"^(?P<q>(?:Do|Does|Did|Is|Are|Was|Were|Can|Could|Will|Would|Should|May|Must|Has|Have|How|What|"
                  r"When|Where|Which|Who|Why)\b[^?]{3,}\?)\s+(?P<a>\S.*)$")


def read(fact: Fact) -> Reading:
    text = fact.statement.strip()
    text = text[:-1] if text.endswith(".") else text
    # an FAQ's labels ("Q: Is there a fee ...? A: The fee is $0.00") are the page's layout,
    # not words anybody says
    text = re.sub(r"\s+A:\s+", " ", re.sub(r"^Q:\s+", "", text)) if text.startswith("Q: ") else text
    cell = read_cell(fact)
    if cell is not None:
        prose = cell_prose(fact, cell) if grid_slot(fact, cell) is None else None
        if prose is None:
            return Reading(fact, cell=cell, text=text)
        r = _read_text(fact, prose)
        r.table = cell
        return r
    q = _FAQ.match(text)
    if q:
        # a question and its answer ("Do I need to maintain a minimum balance? The minimum
        # balance requirement is $500"): the answer is read as a statement, the question kept
        answer = q.group("a")
        r = _read_text(fact, answer) if len(answer.split()) >= 3 else Reading(fact, text=answer)
        r.faq = q.group("q")  # r.text: the answer
        return r
    m2 = re.match(r"^(?P<a>.{15,}?), (?:and|but|so) (?P<b>(?:the|a|an|any|every|each|it|they|we|you|[A-Z][\w-]*)\b.{10,})$",
                  text)
    if "; " in text or (m2 and _split_clause(m2.group("b")).aux):
        a, b = text.split("; ", 1) if "; " in text else (m2.group("a"), m2.group("b"))
        first = _read_text(fact, a)
        first.second = _read_text(fact, b)
        first.text = text
        return first
    return _read_text(fact, text)


def _read_text(fact: Fact, text: str) -> Reading:
    r = Reading(fact, text=text)
    m = _LEAD.match(text)
    body = text
    if m and len(m.group("main").split()) >= 3:
        r.lead = (m.group("conj"), m.group("cond").strip())
        body = m.group("main")
    else:
        t = _TRAIL.match(text)
        if t and len(t.group("main").split()) >= 3 and not re.search(r"\b(only)$", t.group("main")) and \
                not (t.group("conj").lower() in ("after", "before", "until", "once", "while") and
                     re.search(r"\b(minutes?|hours?|days?|weeks?|months?|years?|\d+)$", t.group("main"))) and \
                not re.search(r"\b(chosen|made|given|taken|shown|set|paid|sent|[a-z]+ed),?$", t.group("main")):
            r.trail = (t.group("conj").lower(), t.group("cond").strip())
            body = t.group("main").rstrip(",")
    c = _split_clause(body)
    if not c.subj and not c.imperative:
        c = _lexical_split(body) or c
    r.main = c
    return r


def main_text(fact: Fact) -> Optional[str]:
    """The statement without its condition clause ("If a customer cancels, the fee is $75" ->
    "the fee is $75"), or None when it has none."""
    r = read(fact)
    if r.cell or r.faq or r.second is not None or not (r.lead or r.trail):
        return None
    text = r.text
    m = _LEAD.match(text)
    if r.lead and m:
        return m.group("main")
    t = _TRAIL.match(text)
    if r.trail and t:
        return t.group("main").rstrip(",")
    return None


def _measure(fact: Fact) -> str:
    sec = fact.section[-1] if fact.section else ""
    sec = re.sub(r"^\d+(\.\d+)*\s*", "", sec)
    return sec


# --- value surface forms ----------------------------------------------------------------------
_UNIT_MIN = {"minute": 1, "hour": 60, "day": 1440, "week": 10080}


def value_forms(slot: Slot) -> list[str]:
    """Surface forms of a slot the matcher reads back: the policy's own, numeric, spelled out,
    and the same duration in another unit ("72 hours" -> "three days")."""
    forms = list(surface_forms(slot))
    v = slot.value
    if slot.type == SlotType.duration and slot.unit in _UNIT_MIN and slot.value_max is None and \
            isinstance(v, (int, float)) and float(v).is_integer():
        minutes = int(v) * _UNIT_MIN[slot.unit]
        for unit, per in (("week", 10080), ("day", 1440), ("hour", 60), ("minute", 1)):
            if unit != slot.unit and minutes % per == 0 and 0 < minutes // per <= 90:
                n = minutes // per
                forms.append(f"{int_to_words(n)} {unit_words(unit, n)}")
                forms.append(f"{n} {unit_words(unit, n)}")
    out = []
    for f in forms:
        if f not in out and slot_matches(slot, f) is not None:
            out.append(f)
    return out or [slot.text]


def _adjectival(text: str, slot: Slot) -> bool:
    """'a 24-hour window': the value is used as a hyphenated modifier."""
    i = text.find(slot.text)
    return i >= 0 and bool(re.match(r"-?[a-z]+-", slot.text[len(str(slot.value)):] or "")) or \
        bool(re.search(re.escape(slot.text) + r"-\w", text)) or ("-" in slot.text and slot.type == SlotType.duration)


# --- lexicon ----------------------------------------------------------------------------------
# Alternatives for words and phrases of policy language. They never replace a value or a word
# the recovery rule needs (the caller protects those); each keeps the meaning in context.
_LEX: list[tuple[str, list[str]]] = [
    # phrases
    (r"prior to", ["before", "ahead of"]), (r"in order to", ["to"]), (r"as long as", ["provided", "so long as"]),
    (r"provided that", ["as long as", "on condition that"]), (r"at least", ["no less than", "a minimum of"]),
    (r"at most", ["no more than", "a maximum of"]), (r"up to", ["as much as", "a maximum of"]),
    (r"at or above", ["no lower than", "not below"]), (r"at or below", ["no higher than", "not above"]),
    (r"end-of-day", ["closing"]), (r"avoid", ["steer clear of", "prevent"]), (r"avoids", ["prevents"]),
    (r"complete and accurate", ["accurate and complete", "correct and complete"]), (r"accurate", ["correct"]),
    (r"more than(?= [$\d]| (?:one|two|three|four|five|six|seven|eight|nine|ten)\b)", ["over", "above"]),
    (r"less than(?= [$\d]| (?:one|two|three|four|five|six|seven|eight|nine|ten)\b)", ["under", "below"]),
    (r"fewer than(?= [$\d]| (?:one|two|three|four|five|six|seven|eight|nine|ten)\b)", ["under", "below"]),
    (r"or more", ["or longer", "plus"]), (r"or older", ["plus", "or over"]), (r"as soon as", ["the moment", "once"]),
    (r"in full", ["entirely", "completely"]), (r"free of charge", ["at no cost", "without a fee"]),
    (r"each time", ["every time", "whenever"]), (r"on top of", ["in addition to", "over and above"]),
    (r"instead", ["in its place", "rather"]), (r"because of", ["due to", "owing to"]), (r"due to", ["because of"]),
    (r"caused by", ["due to", "resulting from"]), (r"in a calendar year", ["per calendar year", "within one calendar year"]),
    (r"in any (\d+|one|twelve) months", [r"over any \1 months", r"within any \1 months"]),
    (r"calendar year", ["calendar-year period"]), (r"date of birth", ["birth date"]), (r"email address", ["email"]),
    (r"phone number", ["phone"]), (r"on the profile", ["in the profile", "on file"]),
    (r"on the reservation", ["in the booking", "on that booking"]), (r"on the account", ["on that account",
                                                                                       "in the account"]),
    (r"on file", ["stored", "on record"]), (r"per passenger", ["for each passenger", "a passenger"]),
    (r"per person", ["for each person", "a head"]), (r"per day", ["a day", "each day"]), (r"per year", ["a year",
                                                                                                         "annually"]),
    (r"per month", ["a month", "monthly"]), (r"per cycle", ["each cycle", "a cycle"]),
    (r"per statement cycle", ["each statement cycle", "in a statement cycle"]), (r"per line", ["for each line",
                                                                                                "a line"]),
    (r"per order", ["for each order", "an order"]), (r"per item", ["for each item", "an item"]),
    (r"per transaction", ["for each transaction", "a transaction"]), (r"per account", ["for each account",
                                                                                         "an account"]),
    (r"per device", ["for each device", "a device"]), (r"per night", ["a night", "for each night"]),
    (r"per dollar", ["for each dollar", "a dollar"]), (r"per minute", ["a minute", "for each minute"]),
    (r"per", ["for each", "a"]), (r"for each", ["per"]), (r"each year", ["every year", "annually"]),
    (r"every year", ["each year", "annually"]), (r"each month", ["every month", "monthly"]),
    (r"to waive", ["that waives", "needed to waive"]), (r"for the sign-up bonus", ["to earn the sign-up bonus"]),
    (r"without a pass", ["with no pass"]), (r"in US dollars", ["in USD"]), (r"US dollar", ["USD"]),
    (r"the United States", ["the US"]), (r"without a", ["with no"]), (r"without", ["with no"]),
    (r"at the time of booking", ["when booking", "while booking"]),
    (r"capped at", ["limited to", "held to"]),
    (r"earning", ["that earns", "which earns"]), (r"stated", ["quoted", "listed"]), (r"maximum", ["highest", "top"]),
    (r"(?<!\ba )minimum", ["lowest", "smallest"]), (r"opening deposit", ["deposit to open", "first deposit"]),
    (r"required", ["needed"]), (r"in effect", ["in force", "valid"]), (r"remains", ["stays"]), (r"remain", ["stay"]),
    (r"single", ["one"]), (r"a single", ["one", "just one"]), (r"totaling", ["adding up to", "totalling"]),
    (r"may be held", ["can be put on hold", "might be held"]), (r"turned on", ["switched on", "enabled"]),
    (r"(?<=is )enabled", ["switched on", "turned on"]), (r"(?<=are )enabled", ["switched on", "turned on"]),
    (r"turned off", ["switched off", "disabled"]), (r"turn on", ["switch on", "enable"]), (r"turn off",
                                                                                         ["switch off", "disable"]),
    (r"make sure", ["check", "ensure"]), (r"go to step", ["move on to step", "continue with step"]),
    (r"otherwise", ["if not", "or else"]), (r"comes back", ["returns", "is restored"]), (r"offered by",
                                                                                        ["sold by", "from"]),
    (r"enrolled at", ["studying at", "attending"]), (r"government-issued", ["government"]),
    (r"unexpired", ["valid", "current"]), (r"residential", ["home"]), (r"excluding", ["except", "apart from"]),
    (r"through", ["to"]), (r"proof of", ["evidence of"]), (r"in any", ["over any", "within any"]),
    (r"opted in to", ["signed up for", "chosen"]), (r"who are", ["that are"]), (r"are paid", ["get paid", "are covered"]),
    (r"at the start of", ["at the beginning of", "when"]), (r"the rest of", ["the remainder of", "what is left of"]),
    (r"no matter how long", ["however long"]), (r"whichever is greater", ["whichever is higher", "if that is more"]),
    (r"whichever is lower", ["whichever is smaller"]), (r"roll over", ["carry over", "carry forward"]),
    (r"carry over", ["roll over", "carry forward"]), (r"uses up", ["runs through", "exhausts"]),
    (r"opts in", ["chooses", "agrees"]), (r"up front", ["in advance"]), (r"in advance", ["up front", "ahead"]),
    (r"at the time of", ["at the moment of"]), (r"the day of travel", ["the travel day", "the day you fly"]),
    (r"on the day of", ["on the date of"]), (r"belong to", ["are tied to", "are linked to"]),
    (r"belongs to", ["is tied to", "is linked to"]), (r"act only on", ["only work on", "only touch"]),
    (r"take effect", ["apply", "kick in"]), (r"takes effect", ["applies", "kicks in"]),
    (r"is used up", ["gets used up", "is spent"]), (r"are used up", ["get used up"]), (r"used up", ["spent"]),
    (r"for good", ["permanently", "for ever"]), (r"lost for good", ["permanently lost", "never recovered"]),
    (r"does not have to", ["need not", "doesn't need to"]), (r"do not have to", ["need not", "don't need to"]),
    (r"has to", ["must", "needs to"]), (r"have to", ["must", "need to"]), (r"needs to", ["has to", "must"]),
    (r"need to", ["have to", "must"]), (r"is able to", ["can"]), (r"are able to", ["can"]),
    (r"is allowed to", ["may", "can"]), (r"are allowed to", ["may", "can"]), (r"in good standing", ["in good order",
                                                                                                   "that is current"]),
    (r"as published", ["as listed", "as printed"]), (r"shown in", ["listed in", "given in"]), (r"shown", ["listed",
                                                                                                        "given"]),
    (r"is charged", ["applies", "is billed"]), (r"are charged", ["apply", "are billed"]), (r"is waived", ["is dropped",
                                                                                                        "does not apply"]),
    (r"are waived", ["are dropped", "do not apply"]), (r"is refunded", ["is paid back", "comes back"]),
    (r"are refunded", ["are paid back", "come back"]), (r"is forfeited", ["is lost", "goes unused"]),
    (r"are forfeited", ["are lost"]), (r"is required", ["is needed", "is mandatory"]), (r"are required",
                                                                                      ["are needed"]),
    (r"is responsible for", ["handles", "looks after"]), (r"are responsible for", ["handle", "look after"]),
    (r"is processed", ["is handled", "goes through"]), (r"are processed", ["are handled", "go through"]),
    (r"is delivered", ["arrives", "is sent"]), (r"are delivered", ["arrive", "are sent"]),
    (r"is available", ["is offered", "can be had"]), (r"are available", ["are offered", "can be had"]),
    (r"is assigned", ["is allocated", "gets assigned"]), (r"are assigned", ["are allocated", "get assigned"]),
    (r"is sent", ["goes out", "is mailed"]), (r"are sent", ["go out", "are mailed"]), (r"is applied", ["is put on",
                                                                                                   "is used"]),
    (r"are applied", ["are put on", "are used"]), (r"is reviewed", ["is looked at", "is checked"]),
    (r"is closed", ["is shut"]), (r"is opened", ["is set up"]), (r"is issued", ["goes out", "is given"]),
    (r"is credited", ["is added", "lands"]), (r"are credited", ["are added", "land"]), (r"is returned",
                                                                                      ["is sent back", "comes back"]),
    (r"are returned", ["are sent back", "come back"]), (r"is replaced", ["is swapped"]), (r"is covered", ["is paid for"]),
    (r"is not", ["isn't"]), (r"are not", ["aren't"]), (r"do not", ["don't"]), (r"does not", ["doesn't"]),
    (r"cannot", ["can't"]), (r"can't", ["cannot"]), (r"don't", ["do not"]), (r"doesn't", ["does not"]),
    (r"isn't", ["is not"]), (r"aren't", ["are not"]), (r"won't", ["will not"]), (r"will not", ["won't"]),
    (r"it's", ["it is"]), (r"it is", ["it's"]), (r"that is", ["which is"]), (r"that are", ["which are"]),
    (r"who is", ["that is"]), (r"who are", ["that are"]), (r"there is", ["there's"]), (r"one of the", ["among the"]),
    (r"any other", ["another"]), (r"another", ["a different", "one more"]), (r"the next", ["the following"]),
    (r"the last", ["the final", "the most recent"]), (r"the first", ["the initial", "the opening"]),
    (r"a new", ["a fresh", "another"]), (r"the same", ["the identical", "that same"]),
    (r"in person", ["face to face", "at a counter"]), (r"in writing", ["on paper", "in a written note"]),
    (r"by email", ["over email", "via email"]), (r"by phone", ["over the phone", "via phone"]),
    (r"online", ["on the web", "over the internet"]), (r"on time", ["by the due date", "punctually"]),
    (r"late", ["overdue", "past due"]), (r"right away", ["straight away", "immediately"]),
    (r"a percentage of", ["a share of", "a percent of"]), (r"the amount of", ["the sum of"]),
    (r"the price of", ["the cost of"]), (r"the cost of", ["the price of"]), (r"no longer", ["not any more"]),
    (r"and the", ["plus the", "along with the"]), (r"or the", ["or else the"]),
    # verbs
    (r"purchase", ["buy"]), (r"purchased", ["bought"]), (r"receive", ["get"]), (r"receives", ["gets"]),
    (r"received", ["got", "taken in"]), (r"provide", ["give"]), (r"provides", ["gives"]), (r"require", ["need"]),
    (r"requires", ["needs", "calls for"]), (r"begin", ["start"]), (r"begins", ["starts"]), (r"starts", ["begins"]),
    (r"start", ["begin"]), (r"ends", ["finishes", "stops"]), (r"end", ["finish"]), (r"contact(?= (?:the|a|an|your|their|us|our|support|them|him|her|customers?|staff|members?)\b)",
                                                                ["get in touch with", "reach"]),
    (r"assist", ["help"]), (r"inform", ["tell"]), (r"informs", ["tells"]), (r"tells", ["lets", "informs"]),
    (r"obtain", ["get"]), (r"request", ["ask for"]), (r"requests", ["asks for"]), (r"requested", ["asked for"]),
    (r"ensure", ["make sure"]), (r"include", ["come with", "cover"]), (r"includes", ["comes with", "covers"]),
    (r"included", ["bundled", "covered"]), (r"covers", ["takes care of", "pays for"]), (r"cover", ["take care of",
                                                                                                "pay for"]),
    (r"differ", ["vary"]), (r"differs", ["varies"]), (r"vary", ["differ"]), (r"varies", ["differs"]),
    (r"quote", ["state", "give"]), (r"summarise", ["sum up", "recap"]), (r"summarize", ["sum up", "recap"]),
    (r"verify", ["check", "confirm"]), (r"confirm", ["check", "verify"]),
    (r"confirmed", ["verified", "checked"]), (r"stored", ["saved", "kept"]), (r"store", ["save", "keep"]),
    (r"reimburses", ["pays back", "repays"]), (r"reimburse", ["pay back", "repay"]), (r"forfeits", ["loses", "gives up"]),
    (r"misses", ["does not make"]), (r"accepts", ["takes"]), (r"accept", ["take"]), (r"allows", ["permits", "lets you have"]),
    (r"allow", ["permit"]), (r"charges", ["bills"]), (r"charged", ["billed"]),
    # "charge" by its sense: a verb after a modal or "to" ("may charge a surcharge": never "may fee")
    (r"(?<=may |can |not |you )charge", ["bill"]), (r"(?<=will |they )charge", ["bill"]), (r"(?<=to |we )charge", ["bill"]),
    (r"pays", ["covers", "settles"]), (r"pay", ["cover", "settle"]), (r"paid", ["settled", "covered"]),
    (r"refunded", ["paid back", "returned"]), (r"cancelled", ["called off", "canceled"]),
    (r"canceled", ["called off"]), (r"cancel", ["call off"]), (r"changed", ["altered", "modified"]),
    (r"change", ["alter", "modify"]), (r"removed", ["taken off", "dropped"]), (r"remove", ["take off", "drop"]),
    (r"added", ["put on", "included"]), (r"add", ["put on", "include"]), (r"applies to", ["holds for"]),
    (r"applies(?! to\b)", ["comes into play", "kicks in"]), (r"apply to", ["hold for"]),
    (r"apply(?= (?:a|an|the|this|these|that|any|your|their)\b)", ["use"]),
    (r"apply(?! (?:to|a|an|the|this|these|that|any|your|their)\b)", ["come into play", "kick in"]), (r"applied", ["used", "put"]), (r"issued", ["given", "sent"]),
    (r"issue(?= (?:a|an|the|your|their|it|them|refunds?|credits?|vouchers?|cards?|payments?)\b)", ["give", "send"]), (r"sends", ["mails", "forwards"]), (r"send", ["mail", "forward"]),
    (r"returned", ["sent back", "brought back"]), (r"return", ["send back", "bring back"]), (r"exceed", ["go over",
                                                                                                     "go beyond"]),
    (r"exceeds", ["goes over", "goes beyond"]), (r"converts to", ["turns into", "becomes"]), (r"becomes", ["turns into"]),
    (r"holds", ["has"]), (r"hold", ["have", "keep"]), (r"keeps", ["retains"]), (r"keep", ["retain"]),
    (r"raises", ["lifts", "increases"]), (r"lowers", ["reduces", "cuts"]), (r"expires", ["runs out", "lapses"]),
    (r"expire", ["run out", "lapse"]), (r"lasts", ["runs", "continues"]), (r"last", ["run", "continue"]),
    (r"earn", ["collect", "get"]), (r"earns", ["collects", "gets"]), (r"offers", ["gives", "provides"]),
    (r"offer", ["give", "provide"]), (r"handled", ["dealt with", "managed"]), (r"handle", ["deal with", "manage"]),
    (r"replaced", ["swapped"]), (r"replace", ["swap"]), (r"approve", ["sign off on", "authorise"]),
    (r"submitted", ["sent in", "filed"]), (r"submit", ["send in", "file"]), (r"reviewed", ["looked at", "checked"]),
    (r"review", ["look at", "check"]), (r"opened", ["set up"]), (r"open", ["set up"]), (r"closes", ["shuts"]),
    (r"close", ["shut"]), (r"sets", ["fixes", "chooses"]), 
    (r"explain", ["describe", "set out"]), (r"suggest", ["recommend", "propose"]), (r"escalate", ["pass up",
                                                                                               "refer"]),
    (r"transfer(?= (?:the|your|a|an|it|them|money|funds|\$))", ["move"]), (r"linked", ["connected", "tied"]), (r"counts against", ["uses up", "eats into"]),
    (r"counts", ["is counted"]), (r"treated as", ["regarded as", "handled as"]), (r"governed by", ["subject to",
                                                                                                "ruled by"]),
    (r"recorded", ["logged", "noted"]), (r"record", ["log", "note"]), (r"sold", ["offered", "bought"]),
    (r"collect", ["pick up", "gather"]), (r"reach(?! out)", ["get to"]), (r"arrives", ["comes in", "turns up"]),
    # nouns
    (r"customer", ["client"]), (r"customers", ["clients"]), (r"customer's", ["client's"]),
    (r"agent", ["rep", "staff member"]), (r"agents", ["reps", "staff"]), (r"reservation", ["booking"]),
    (r"reservations", ["bookings"]), (r"booking", ["reservation"]), (r"bookings", ["reservations"]),
    (r"fee", ["charge"]), (r"fees", ["charges"]),
    (r"(?<!may )(?<!can )(?<!not )(?<!you )(?<!will )(?<!they )(?<!to )(?<!we )charge", ["fee"]), (r"amount", ["sum", "figure"]),
    (r"number", ["figure"]), (r"item", ["article"]), (r"items", ["articles", "goods"]), (r"remainder", ["rest",
                                                                                                      "balance"]),
    (r"request", ["ask"]), (r"requests", ["asks"]), (r"purchase", ["buy"]), (r"purchases", ["buys"]),
    (r"application", ["request"]), (r"applicant", ["person applying"]), (r"applicants", ["people applying"]),
    (r"conversation", ["chat", "exchange"]), (r"documentation", ["paperwork"]), (r"documents", ["papers",
                                                                                               "paperwork"]),
    (r"approval", ["sign-off"]), (r"confirmation", ["OK"]), (r"trip", ["journey"]),
    (r"journey", ["trip"]), (r"travel", ["travelling"]), (r"baggage", ["luggage"]), (r"luggage", ["baggage"]),
    (r"lodging", ["accommodation", "a hotel"]), (r"meals", ["food"]), (r"money", ["funds"]), (r"funds", ["money"]),
    (r"illness", ["sickness"]), (r"injury", ["accident"]), 
    (r"records", ["files"]), (r"details", ["particulars", "information"]), (r"address", ["postal address"]),
    (r"phone", ["mobile"]), (r"problem", ["issue"]), (r"issue", ["problem"]), (r"team", ["group"]),
    (r"staff", ["employees", "team members"]), (r"employees", ["staff"]), (r"playbook", ["guide", "handbook"]),
    (r"handbook", ["guide", "manual"]), (r"manual", ["handbook", "guide"]), (r"policy", ["rulebook", "rules"]),
    (r"rule", ["policy"]), (r"rules", ["policies"]), (r"step", ["stage"]), (r"steps", ["stages"]),
    (r"attempt", ["try"]), (r"attempts", ["tries"]), (r"session", ["visit"]), (r"message", ["text"]),
    (r"window", ["period"]), (r"period", ["window", "stretch"]), (r"deadline", ["cut-off"]), (r"cut-off", ["deadline"]),
    (r"certificate", ["voucher"]), (r"remaining", ["leftover", "outstanding"]),
    # adjectives and adverbs
    (r"additional", ["extra", "further"]), (r"extra", ["additional"]), (r"approximately", ["about", "roughly"]),
    (r"required", ["needed", "necessary"]), (r"permitted", ["allowed"]), (r"allowed", ["permitted"]),
    (r"possible", ["an option", "allowed"]), (r"immediately", ["straight away", "right away"]),
    (r"however", ["but"]), (r"therefore", ["so"]), (r"every", ["each"]), (r"each", ["every"]),
    (r"any(?!\s+[a-z]+s\b)", ["every"]),  # "any discrepancies" is no "every discrepancies"
    (r"never", ["not ever", "under no circumstances"]), (r"only", ["just", "solely"]), (r"exactly", ["precisely"]),
    (r"original", ["initial", "first"]), (r"full", ["complete", "whole"]), (r"whole", ["entire", "full"]),
    # "complete" as an adjective only ("a complete record"): "transfers complete in three days" is a verb
    (r"(?<=a )complete", ["full"]), (r"(?<=the )complete", ["full"]), (r"(?<=is )complete", ["full"]),
    (r"(?<=are )complete", ["full"]), (r"complete in", ["go through in", "clear in"]),
    (r"complete within", ["go through within", "clear within"]), (r"existing", ["current"]), (r"current", ["present"]),
    (r"later", ["subsequent"]), (r"different", ["other"]), (r"explicit", ["clear", "express"]),
    (r"valid", ["good", "usable"]),
    # "available" said of a thing ("is available to you"), never before its noun ("your available
    # rewards" is no "your on offer rewards")
    (r"available(?!\s+(?!(?:to|for|in|on|at|from|only|until|when|if|after|before|during|through|via|by|with|and|or|"
     r"as|once|upon|immediately|now|again|online|today)\b)[a-z])", ["on offer", "offered"]), (r"unused", ["leftover"]),
    (r"optional", ["voluntary", "opt-in"]), (r"standard", ["regular", "normal"]), (r"regular", ["standard"]),
    (r"free(?! of charge)", ["at no charge", "no-cost"]), (r"scheduled", ["planned"]), (r"documented", ["recorded",
                                                                                         "certified"]),
    (r"immediate", ["close"]), (r"consecutive", ["back-to-back", "successive"]), (r"temporary", ["short-term"]),
    (r"automatically", ["by default", "on its own"]), (r"automatic", ["auto"]), (r"separate", ["distinct"]),
    (r"personal", ["individual"]), (r"daily", ["per-day"]), (r"monthly", ["per-month"]), (r"annual", ["yearly"]),
    (r"yearly", ["annual"]), (r"outstanding", ["unpaid", "remaining"]), (r"eligible", ["entitled", "qualified"]),
    (r"kindly", ["politely", "gently"]), (r"both", ["the two"]), (r"whether", ["if"]),
    (r"depends on", ["is set by", "varies with"]), (r"depend on", ["are set by", "vary with"]),
    (r"within", ["inside"]), (r"outside", ["beyond"]), (r"after", ["following"]), (r"before", ["ahead of"]),
    (r"again", ["once more"]), (r"together", ["jointly"]), (r"jointly", ["together"]),
    (r"also", [""]), (r"either", [""]), (r"its", ["the"]), (r"their", ["the"]), (r"this", ["that"]), (r"our", ["the"]),
]
_LEX_RE = [(re.compile(rf"(?<![\w'-]){p}(?![\w'-])", re.I), alts) for p, alts in _LEX]


def _bare(pattern: str) -> str:
    """A swap pattern without its leading look-behinds ("(?<!\\ba )minimum" -> "minimum")."""
    return re.sub(r"^(?:\(\?<[!=][^)]*\))+", "", pattern)


def _first_word(pattern: str) -> str:
    m = re.match(r"[a-z']+", _bare(pattern))
    return m.group(0) if m else ""


# entries by their first word, each alternative that does not repeat the replaced words
_LEX_BY_WORD: dict[str, list[tuple[re.Pattern, list[str], str]]] = {}
for (_rx, _alts), (_pat, _a) in zip(_LEX_RE, _LEX):
    _lit = re.sub(r"\(.*", "", _bare(_pat)).strip()
    _ok = [x for x in _alts if not (_lit and re.search(rf"(?<![\w'-]){re.escape(_lit)}(?![\w'-])", x))]
    if _ok:
        _LEX_BY_WORD.setdefault(_first_word(_pat), []).append((_rx, _ok, _pat))
# function-word swaps are a last resort: they may only break a run, never start a draft
_LAST_RESORT = {"its", "their", "this", "our"}


def _keep_case(src: str, rep: str) -> str:
    return rep[:1].upper() + rep[1:] if src[:1].isupper() else rep


# --- agreement and persons ------------------------------------------------------------------
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


# --- the realiser -----------------------------------------------------------------------------
@dataclass
class Context:
    """What a rendition may draw on besides the fact: the customer and record in front of the
    speaker (for example-led frames)."""

    customer: Optional["Customer"] = None
    record: Optional["Rec"] = None
    speaker_name: str = ""


@dataclass
class Draft:
    text: str
    frame: str


class Realiser:
    def __init__(self, proper_words: set[str], company: str = "", brand: str = ""):
        self.proper = proper_words
        self.company = company
        self.brand = brand
        self.given = ""  # what the line before already named (`BuiltinWriter.anaphoric`): its subject becomes "it"

    # .. public ...................................................................................
    def render(self, fact: Fact, rendition: str, rng: random.Random, reg: Register = REGISTERS["chat"],
               ctx: Optional[Context] = None, value_text: Optional[dict[str, str]] = None) -> str:
        """One sentence (or a question and its answer) stating `fact`. `value_text` overrides
        a slot's value (by slot name) with another surface text: a wrong value, worded like a
        real one."""
        r = read(fact)
        if rendition == "canonical":
            return self._canonical(r, rng, reg, value_text)
        return self.voiced(r, rng, reg, ctx, value_text)

    def voiced(self, r: Reading, rng: random.Random, reg: Register, ctx: Optional[Context] = None,
               value_text: Optional[dict[str, str]] = None, single: bool = False, before: str = "") -> str:
        if r.table is not None:
            # a table row read as prose (`cell_prose`); when no re-wording of it stays
            # recoverable (a long prose cell copies the policy), it is said as a cell
            try:
                return self._voiced(r, rng, reg, ctx, value_text, single, before)
            except RealiseError:
                r = Reading(r.fact, cell=r.table, text=r.fact.statement.strip().rstrip("."))
        return self._voiced(r, rng, reg, ctx, value_text, single, before)

    def _voiced(self, r: Reading, rng: random.Random, reg: Register, ctx: Optional[Context],
                value_text: Optional[dict[str, str]], single: bool, before: str) -> str:
        fact = r.fact
        frames = self._frames(r, reg, ctx, single)
        rng.shuffle(frames)
        if r.faq:
            frames = [("faq", self._faq)] * 3
        elif not r.cell:
            frames.append(("note", self._note))
        tried = []
        for name, fn in frames:
            for attempt in range(6 if name == "note" else 2):
                d = fn(r, rng, reg, ctx, value_text)
                if d is None:
                    break
                text = self._polish(d.text, reg)
                text = self._break_runs(fact, text, rng, reg, value_text)
                tried.append(text)
                if text and not shares_run(text, fact.statement) and not _ROUND_TRIP.search(text) and \
                        (value_text or recoverable(fact, before + text)):
                    if name in ("wh_qa", "cell_qa") and reg.genre == "email":
                        # written out, a question and its answer are two lines ("How long are gift
                        # card refunds credited?" / "Twenty-four hours."), as in a letter's or an
                        # e-mail's list of answers
                        text = text.replace("? ", "?\n", 1)
                    return text
        raise RealiseError(f"fact {fact.id}: no voiced wording without a 6-word run of the statement "
                           f"that stays recoverable; last draft: {tried[-1] if tried else '-'!r}")

    def single(self, fact: Fact, rng: random.Random, reg: Register, value_text: Optional[dict[str, str]] = None,
               ctx: Optional[Context] = None) -> str:
        """A voiced rendition in one sentence (for a hedged mention: the hedge must sit in the
        same sentence as the value)."""
        return self.voiced(read(fact), rng, reg, ctx, value_text, single=True)

    # .. canonical ................................................................................
    def _canonical(self, r: Reading, rng: random.Random, reg: Register, value_text) -> str:
        text = r.text if r.table is not None else r.fact.statement.strip()
        if value_text:
            text = self._with_values(text, r.fact, value_text)
        if r.cell and reg.genre not in ("table", "slide"):
            what, whom = self._cell_parts(r)
            val = self._cell_value(r, rng, value_text, canonical=True)
            text = capitalise(f"the {what} for {whom} is {val}.")
        return text if text.endswith((".", "?", "!")) else text + "."

    def _with_values(self, text: str, fact: Fact, value_text: dict[str, str]) -> str:
        for s in fact.slots:
            if s.name in value_text and s.text:
                text = replace_value(text, s.text, value_text[s.name])
        return text

    # .. frames ...................................................................................
    def _frames(self, r: Reading, reg: Register, ctx: Optional[Context], single: bool) -> list[tuple[str, Callable]]:
        if r.cell:
            fr = [("cell_plain", self._cell_plain), ("cell_have", self._cell_have), ("cell_value_first",
                                                                                     self._cell_value_first)]
            if not single and not reg.genre == "table":
                fr.append(("cell_qa", self._cell_qa))
            if ctx and ctx.customer and reg.to_customer and not single:
                fr.append(("cell_yours", self._cell_yours))
            return fr
        fr = [("plain", self._plain)]
        if r.lead or r.trail:
            fr.append(("swap", self._swap))
            if (not reg.controlled or reg.genre == "kb") and not single:
                fr.append(("example", self._example))
        if r.second is not None and not single:
            fr.append(("contrast", self._contrast))
        if not single and (reg.genre in ("chat", "call", "email", "kb", "meeting", "team_chat", "slide")):
            if self._wh_target(r) is not None:
                fr.append(("wh_qa", self._wh_qa))
            elif r.main and r.main.aux in ("may", "can", "may_not", "cannot", "must_not", "must_never", "may_only",
                                           "can_only") and r.main.subj:
                fr.append(("yn_qa", self._yn_qa))
        return fr

    # cells
    def _cell_value(self, r: Reading, rng: random.Random, value_text, canonical: bool = False) -> str:
        val = r.cell["val"]
        f = r.fact
        for s in f.slots:
            if s.type in (SlotType.enum, SlotType.identifier) or not s.text or s.text not in val:
                continue
            if value_text and s.name in value_text:
                val = replace_value(val, s.text, value_text[s.name])
            elif not canonical:
                val = replace_value(val, s.text, self._form(s, rng))
        return val

    def _form(self, s: Slot, rng: random.Random, avoid_policy: bool = True) -> str:
        """Another surface form of the value; forms whose words differ from the policy's own
        (not "$45.00" for "$45") come first, so the value breaks a shared run."""
        forms = value_forms(s)
        if not avoid_policy:
            return rng.choice(forms)
        own = tokens(s.text)
        alt = [x for x in forms if x != s.text and (not own or tokens(x)[:1] != own[:1])]
        return rng.choice(alt or [x for x in forms if x != s.text] or forms)

    def _measure_np(self, r: Reading) -> str:
        c = r.cell
        col = c["col"]
        if _property_like(col):
            return self.lower(col)
        m = c["measure"]
        m = re.sub(r"\b(catalog|schedule|table|matrix)\b", "", m, flags=re.I).strip()
        if not m or "," in m or " and " in m or CLAUSE_HEADING.search(m) or re.search(r"[()]", m):
            # a heading that is a phrase, a step or a question ("How your deposits create
            # environmental impact", "STEP 3: Apply Score Thresholds") names no measure
            t = next((s.type for s in r.fact.slots if s.type not in (SlotType.enum, SlotType.identifier)), None)
            return {SlotType.money: "amount", SlotType.count: "number", SlotType.duration: "time limit",
                    SlotType.percent: "rate"}.get(t, "value")
        return self.lower(m)

    def _cell_parts(self, r: Reading, rng: Optional[random.Random] = None) -> tuple[str, str]:
        """(what, whom): ('annual fee', 'the Fleet Card'), ('return window', 'camping and
        hiking'), ('checked bag allowance', 'Wayfarer in Main'), ('amount', 'Voyager with a
        qualifying delay'). With `rng` (a voiced rendition), the column is named the way people
        name it rather than by the schedule's exact label (`label_variants`)."""
        c = r.cell
        if rng is not None:
            alts = label_variants(c["col"])
            if alts:
                c = {**c, "col": alts[rng.randrange(len(alts))]}
        row = c["row"]
        if not any(w[:1].isupper() for w in row.split()[1:]) and row.split()[0] not in self.proper:
            row = self.lower(row)
        elif re.search(r"(product|card|loan|account|plan|certificate|mortgage|top-up|pass)", c["row_attr"], re.I):
            row = self._the(row)
        col = c["col"]
        if col.lower().endswith(" within"):  # "Provisional credit issued within" -> a time limit
            return f"time limit for {self.lower(col[:-7])}", row
        if _property_like(col) or re.search(r"\b(before|deadline|time|delivery|validity|entries|cards)\b", col, re.I):
            return self.lower(col), row
        whom = f"{row} and {col}" if len(col.split()) == 1 else f"{row} with a {self.lower(col)}"
        what = self._measure_np(r)
        if re.search(r"(fees|charges|rates|limits|amounts)$", what):
            what = what[:-1]
        return what, whom

    def _cell_plain(self, r, rng, reg, ctx, vt) -> Draft:
        what, whom = self._cell_parts(r, rng)
        val = self._cell_value(r, rng, vt)
        t = rng.choice(["the {what} for {whom} {is} {val}", "for {whom}, the {what} {is} {val}",
                        "the {what} on {whom} {comes} to {val}", "{whom} carries {a}{what} of {val}",
                        "the {what} that {applies} to {whom} {is} {val}"])
        return Draft(t.format(what=what, whom=whom, val=val, **_number_words(what)), "cell_plain")

    def _cell_have(self, r, rng, reg, ctx, vt) -> Draft:
        what, whom = self._cell_parts(r, rng)
        val = self._cell_value(r, rng, vt)
        t = rng.choice(["{Whom} has {a}{what} of {val}", "with {whom}, you are looking at {a}{what} of {val}",
                        "{Whom} comes with {a}{what} of {val}", "{Whom}: {what} of {val}"])
        if reg.controlled:
            t = rng.choice(["{Whom} has {a}{what} of {val}", "{Whom}: {what} of {val}",
                            "{Whom} carries {a}{what} of {val}"])
        return Draft(t.format(what=what, whom=whom, Whom=capitalise(whom), val=val, **_number_words(what)),
                     "cell_have")

    def _cell_value_first(self, r, rng, reg, ctx, vt) -> Draft:
        what, whom = self._cell_parts(r, rng)
        val = self._cell_value(r, rng, vt)
        t = rng.choice(["{val} is the {what} for {whom}", "{val} — that is the {what} for {whom}",
                        "{val} is what the {what} {comes} to for {whom}"])
        return Draft(t.format(what=what, whom=whom, val=val, **_number_words(what)), "cell_value_first")

    def _cell_qa(self, r, rng, reg, ctx, vt) -> Draft:
        what, whom = self._cell_parts(r, rng)
        val = self._cell_value(r, rng, vt)
        q = rng.choice(["What {is} the {what} for {whom}?", "The {what} for {whom}?", "How about the {what} for {whom}?"])
        # the answer names what it is ("The limit is $800."): a bare "It is 5 dollars." recurs
        # across a domain's files
        words = what.split()
        cut = next((i for i, x in enumerate(words) if i and x in _HEAD_STOP), len(words))
        head = " ".join(x for x in words[max(0, cut - 2):cut] if x.lower() not in ("the", "a", "an")) or "figure"
        if _is_plural(head.split()[-1]) or _is_plural(what):
            a = rng.choice(["{val}, then.", "{val} in that case.", "{val} is the number."])
        elif reg.controlled:  # the value last: two wrapped answers never end on the same line
            a = rng.choice(["the {head} is {val}.", "that {head} is {val}."])
        else:
            a = rng.choice(["the {head} is {val}.", "that {head} is {val}.", "{val} is the {head}.",
                            "{val}: that's the {head}.", "it's {val}, that {head}."])
        n = _number_words(what)
        return Draft(q.format(what=what, whom=whom, **n) + " " + capitalise(a.format(val=val, head=head, **n)), "cell_qa")

    def _cell_yours(self, r, rng, reg, ctx, vt) -> Draft:
        what, whom = self._cell_parts(r, rng)
        val = self._cell_value(r, rng, vt)
        name = ctx.customer.first if ctx and ctx.customer else ""
        t = rng.choice(["{name}, for {whom} the {what} {is} {val}", "in your case, with {whom}, the {what} {is} {val}",
                        "for you, {name} — {whom} — the {what} {comes} to {val}"])
        return Draft(t.format(what=what, whom=whom, val=val, name=name, **_number_words(what)), "cell_yours")

    # prose
    def _clause(self, c: Clause, rng: random.Random, reg: Register, vt, fact: Fact, lower: bool = False) -> str:
        """The main clause in the register's persons, with another modal."""
        subj, pred = c.subj, c.pred
        person = "3"
        plural = c.plural
        if c.imperative:
            return self._imperative(c.pred, rng, reg)
        if self.given and plain_subject(c) and named_in(subj, self.given) and \
                not _CUSTOMER_SUBJ.match(subj.strip()) and not _STAFF_SUBJ.match(subj.strip()):
            subj = "they" if plural else "it"  # the question just named it
        if reg.to_customer and _CUSTOMER_SUBJ.match(subj.strip()):
            subj, person, plural = "you", "2", True
        elif not reg.controlled and _STAFF_SUBJ.match(subj.strip()) and reg.speaker in ("agent", "manager",
                                                                                       "colleague"):
            subj, person, plural = ("we", "1p", True) if reg.to_customer or rng.random() < 0.5 else ("you", "2", True)
        elif reg.to_customer and re.match(r"^(the|a|an)\s+(reservation|booking|order|account|card|line|loan|policy|"
                                          r"device|plan|return|refund)\b", subj, re.I) and rng.random() < 0.5:
            subj = re.sub(r"^(the|a|an)\b", "your", subj, count=1, flags=re.I)
        if reg.to_customer:  # an instruction list after a colon stays the staff's own
            head, colon, tail = pred.partition(": ")
            pred = _you_object(head) + colon + tail
        if c.aux:
            # "cannot be eligible" is a state ruled out: "will not be", never the weaker "may not
            # be" nor "is not able to be"
            verb = rng.choice(("can't", "will not")) if c.aux == "cannot" and pred.startswith("be ") else \
                modal(c.aux, plural, rng, person=person)
            text = f"{subj} {verb} {pred}".strip()
        else:
            if person in ("1p", "2") or plural:
                m = re.match(r"^([a-z]+)\b(.*)$", pred)
                if m and person in ("1p", "2") and not c.plural:
                    pred = base_form(m.group(1)) + m.group(2)
            text = f"{subj} {pred}".strip()
        if subj in ("you", "we"):
            return text
        return self.lower(text) if lower else text

    def _imperative(self, pred: str, rng: random.Random, reg: Register) -> str:
        m = re.match(r"^(\w+)(.*)$", pred)
        verb, rest = (m.group(1), m.group(2)) if m else (pred, "")
        low = verb.lower()
        if low in ("never", "always", "only"):
            # the adverb stays before its verb, whatever the subject ("the agent always verifies",
            # never "the always agent verifies")
            if not rest.strip():
                return pred
            out = self._imperative(rest.strip(), rng, reg)
            v = re.match(r"\w+", rest.strip()).group(0).lower()
            m = re.search(rf"\b(?:{re.escape(v)}|{re.escape(third_person(v))})\b", out, re.I)
            if m is None:
                return out.replace(" ", f" {low} ", 1)
            if out[:m.start()].rstrip().lower().endswith(low):
                return out
            return f"{out[:m.start()]}{low} {out[m.start():]}"
        if reg.controlled:
            if _addressed(rest):
                # said to the customer ("Keep your balance at or above $5,000"): the customer
                # does it, not staff ("the agent keeps your balance"); its conditions follow (`_cond`)
                subj = rng.choice(["the customer", "customers"])
                rest = _to_them(rest)
                return f"{subj} {third_person(low) if subj == 'the customer' else low}{rest}"
            subj = rng.choice(["the agent", "staff", "the team member handling the case"])
            v = third_person(low) if subj != "staff" else low
            if subj != "staff":  # "refreshes the card list and verifies that ...": both verbs agree
                rest = re.sub(r"(\s(?:and|then|or|and then)\s)([a-z]+)\b",
                              lambda m: m.group(1) + (third_person(m.group(2)) if _IMPERATIVE.match(
                                  capitalise(m.group(2))) else m.group(2)), rest, count=1)
            return f"{subj} {v}{rest}"
        if reg.to_customer:
            rest = _you_object(rest)
            return rng.choice([f"we {low}{rest}", f"I'll {low}{rest}", f"what we do is {low}{rest}"])
        return rng.choice([f"please {low}{rest}", f"make sure you {low}{rest}", f"remember to {low}{rest}",
                           f"you {low}{rest}", f"always {low}{rest}" if low not in ("never",) else f"{low}{rest}"])

    def _cond(self, conj: str, cond: str, reg: Register, main: Optional[Clause] = None) -> tuple[str, str]:
        """A condition in the register's persons; beside an instruction to the customer that a
        controlled register says of the customer (`_imperative`), "you" becomes "they"."""
        if reg.to_customer:
            cond = _you_subject(cond)
        elif reg.controlled and main is not None and main.imperative and _addressed(main.pred):
            cond = _to_them(cond, subject=True)
        return conj, cond

    def _plain(self, r, rng, reg, ctx, vt) -> Draft:
        main = self._clause(r.main, rng, reg, vt, r.fact)
        if r.lead:
            conj, cond = self._cond(*r.lead, reg, r.main)
            text = f"{conj} {cond}, {self.lower(main)}"
        elif r.trail:
            conj, cond = self._cond(*r.trail, reg, r.main)
            text = f"{main} {conj} {cond}"
        else:
            text = main
        if r.second is not None:
            text += "; " + self.lower(self._plain(r.second, rng, reg, ctx, vt).text)
        return Draft(self._values(text, r.fact, rng, vt), "plain")

    def _swap(self, r, rng, reg, ctx, vt) -> Draft:
        main = self._clause(r.main, rng, reg, vt, r.fact)
        if r.lead:
            conj, cond = self._cond(*r.lead, reg, r.main)
            conj = {"If": "if", "When": "when", "Once": "once", "After": "after", "Before": "before", "Unless": "unless",
                    "For": "for", "Within": "within", "Outside": "outside", "During": "during", "Until": "until",
                    "While": "while", "Where": "where", "In": "in", "On": "on", "At": "at"}.get(conj, conj.lower())
            text = f"{main} {conj} {cond}"
        else:
            conj, cond = self._cond(*r.trail, reg, r.main)
            if conj in ("so that", "because") or re.search(r"\b(?:that|which|who)\b[^,;]*$", r.main.pred):
                # a trailing condition after a relative clause ("charges that can trigger when
                # you are below the requirement") belongs to it: fronted, it would govern the rule
                return None
            text = f"{conj.capitalize()} {cond}, {self.lower(main)}"
        if r.second is not None:
            text += "; " + self.lower(self._plain(r.second, rng, reg, ctx, vt).text)
        return Draft(self._values(text, r.fact, rng, vt), "swap")

    def _example(self, r, rng, reg, ctx, vt) -> Optional[Draft]:
        conj, cond = r.lead or r.trail
        # an example is a case: a condition with a clause of its own ("say a delay lasts six
        # hours"), never a time ("say using this tool" lost the "before" of its rule)
        if conj.lower() not in ("if", "when", "whenever") or re.match(r"^\w+ing\b", cond.strip()):
            return None
        conj, cond = self._cond(conj, cond, reg, r.main)
        main = self.lower(self._clause(r.main, rng, reg, vt, r.fact))
        if ctx and ctx.record and reg.to_customer and rng.random() < 0.5:
            rec = ctx.record
            what = f"{rec.kind} {rec.id}" if rec.id and not rec.internal else rec.ref()
            t = rng.choice(["take {what}: {cond_as}, {main}", "with {what}, say {cond}: then {main}"])
            text = t.format(what=what, cond=cond, main=main, cond_as=f"{conj.lower()} {cond}")
        else:
            t = rng.choice(["say {cond} — {main}", "for example, {conj} {cond}, {main}",
                            "picture this: {cond}; in that case {main}", "suppose {cond}: {main}"])
            text = t.format(cond=cond, main=main, conj=conj.lower())
        if r.second is not None:
            text += "; " + self.lower(self._plain(r.second, rng, reg, ctx, vt).text)
        return Draft(self._values(text, r.fact, rng, vt), "example")

    def _contrast(self, r, rng, reg, ctx, vt) -> Optional[Draft]:
        first = self._plain(replace(r, second=None), rng, reg, ctx, vt).text
        second = self._plain(r.second, rng, reg, ctx, vt).text
        t = rng.choice(["{b}, but {a}", "{b}; {a}, though", "{b} — whereas {a}"])
        return Draft(t.format(a=self.lower(first), b=second), "contrast")

    def _faq(self, r, rng, reg, ctx, vt) -> Draft:
        """An FAQ entry said as one: its question (re-worded by the run breaker; put to the
        customer as "you" in a reply to one) and its answer voiced."""
        q = _ask_otherwise(r.faq, rng)
        if reg.to_customer and not reg.controlled:
            q = _persons(q, _TO_YOU)
        plain = replace(r, faq="")
        if plain.main is not None and (plain.main.subj or plain.main.imperative):
            a = self._plain(plain, rng, reg, ctx, vt).text
        else:
            a = self._values(plain.text, r.fact, rng, vt)
        return Draft(f"{q} {capitalise(a)}", "faq")

    def _note(self, r, rng, reg, ctx, vt) -> Draft:
        """Note style, the way staff jot a rule down: articles and copulas dropped, "per" as a
        slash, "and" as an ampersand ("EasyPay discount capped at $20/account/billing cycle")."""
        base = self._plain(r, rng, reg, ctx, vt).text
        return Draft(telegraph(base, reg), "note")

    def unrun(self, fact: Fact, text: str, rng: random.Random, reg: Register = REGISTERS["chat"]) -> Optional[str]:
        """`text` (a question, a claim with a wrong value) re-worded until it shares no 6-word
        run with the statement, without the recovery rule; None when that fails."""
        out = self._break_runs(fact, text, rng, reg, {"_": ""})
        return None if shares_run(out, fact.statement) else out

    def unborrow(self, fact: Fact, text: str, statements: list[str], rng: random.Random,
                 reg: Register = REGISTERS["chat"], keep: bool = True) -> str:
        """`text` (a sentence about `fact`) re-worded inside every 6-word run it shares with one
        of `statements` (policy statements its file must not copy: those of the other facts
        the file words in its own way, and the fact's own when it is voiced); `keep`: every
        swap keeps the recovery rule of `fact` (a sentence stating it as current). The caller
        checks what is left."""
        return self._break_runs(fact, text, rng, reg, None if keep else {"_": ""}, against="\n".join(statements))

    def ask(self, fact: Fact, rng: random.Random, first_person: bool = True) -> Optional[str]:
        """A question about the fact without its answer ("How long is the profile locked
        after three failed verification attempts?"), from its own clause; None when the
        clause does not make one. `first_person`: a customer asks ("can I ...")."""
        r = read(fact)
        if r.faq:  # an FAQ's own question, in the asker's words
            return r.faq if first_person else None
        reg = REGISTERS["chat"]
        d = None
        numeric = any(s.type in _NUMERIC for s in fact.slots)
        if self._wh_target(r) is not None:
            d = self._wh_qa(r, rng, reg, None, None)
        elif numeric:
            return None  # a yes/no question would put the answer's value in the asker's mouth
        elif r.main and r.main.subj and r.main.aux in ("may", "can", "may_not", "cannot", "must_not", "must_never",
                                                      "must", "is", "is_not"):
            c = r.main
            # a label before the clause ("Operator surcharges: The ATM owner may charge ...") is
            # the topic, not the subject: "can the ATM owner charge ...?"
            bare = _topic_label(c.subj)[1]
            you = _CUSTOMER_SUBJ.match(bare.strip())
            subj = "you" if you else self.lower(bare)
            do = "do" if you or c.plural else "does"
            aux = {"must": do + " {s} have to", "is": "is {s}", "is_not": "is {s}"}.get(c.aux, "can {s}")
            if c.aux == "is" and you:
                aux = "are {s}"
            q = aux.format(s=subj) + " " + re.sub(r"^(only|never|not)\s+", "", c.pred)
            cond = r.lead or r.trail
            if cond:
                q += f" {cond[0].lower()} {cond[1]}"
            d = Draft(capitalise(q) + "?", "yn_q")
        if d is None or re.search(r"[\"\u201c\u201d]|(?:^|\s)'\w", d.text):
            return None  # a clause around someone's quoted words makes no question of its own
        q = _topic_label(d.text.split("?")[0] + "?")[1]  # a customer asks without the policy's label
        if first_person:
            q = _persons(q, _TO_ME)
        return finish(fix_agreement(q))

    def _wh_target(self, r: Reading) -> Optional[tuple[Slot, str]]:
        """The value slot a wh-question can ask for: its value phrase ends the main clause."""
        if r.main is None or r.main.imperative or not r.main.subj or r.second is not None:
            return None
        pred = r.main.pred
        for s in r.fact.slots:
            if s.type not in (SlotType.money, SlotType.duration, SlotType.count, SlotType.percent) or not s.text:
                continue
            m = re.search(r"(?:\s(?:for|of|at|within|in|to))?\s" + re.escape(s.text) + r"(?:\s[a-z]+)?$", " " + pred)
            if m and s.text in pred:
                stem = (" " + pred)[: -len(m.group(0))].strip()
                if not stem or len(stem.split()) > 4 or re.search(r"\b(a|an|the|extra|of|and|or)$", stem):
                    return None
                return s, m.group(0)
        return None

    def _wh_qa(self, r, rng, reg, ctx, vt) -> Optional[Draft]:
        tgt = self._wh_target(r)
        if tgt is None:
            return None
        slot, phrase = tgt
        c = r.main
        word = {SlotType.money: "how much", SlotType.duration: "how long", SlotType.count: "how many",
                SlotType.percent: "what percentage"}[slot.type]
        stem = (" " + c.pred)[: -len(phrase)].strip()
        unit = ""
        if slot.type == SlotType.count:
            m = re.search(re.escape(slot.text) + r"\s+([a-z]+)", c.pred)
            unit = m.group(1) if m else ""
            if not unit:
                return None
            word = f"how many {unit}"
        label, subj = _topic_label(c.subj)
        person_you = reg.to_customer and _CUSTOMER_SUBJ.match(subj.strip())
        if person_you:
            subj = "you"
        # the value belongs to a noun of the clause ("... is assessed a per-transaction fee of
        # $2.50"): the question asks for that noun, never "how much is any transaction ...
        # assessed a per-transaction fee"; a person is no "for" ("how much is the late fee")
        owned = (re.match(r"^(?:[a-z]+\s+){1,2}?(?:a|an|the)\s+([\w -]+)$", stem)
                 if phrase.lstrip().startswith("of ") and slot.type != SlotType.count else None)
        if owned:
            noun = owned.group(1).strip()
            whose = "" if person_you or _CUSTOMER_SUBJ.match(subj.strip()) or _STAFF_SUBJ.match(subj.strip()) \
                else f" for {self.lower(subj)}"
            q = f"{word} {_number_words(noun.split()[-1])['is']} the {noun}{whose}"
        elif c.aux:
            plain = {"may": "can", "must": "must", "can": "can", "is": "are" if c.plural or person_you else "is",
                     "will": "will", "should": "should", "may_only": "can", "can_only": "can"}
            if c.aux not in plain:
                return None
            aux = [plain[c.aux]]
            q = f"{word} {aux[0]} {self.lower(subj)} {' '.join(aux[1:] + [stem])}".strip()
        else:
            m = re.match(r"^([a-z]+)\b(.*)$", stem)
            if not m:
                return None
            do = "do" if c.plural or person_you else "does"
            q = f"{word} {do} {self.lower(subj)} {base_form(m.group(1))}{m.group(2)}"
        q = re.sub(r"\s+", " ", q).strip()
        if r.lead:
            q = f"{r.lead[0].lower()} {r.lead[1]}, {q}"
        elif r.trail:
            q = f"{q} {r.trail[0]} {r.trail[1]}"
        if unit and slot.type == SlotType.count:
            q = q.replace(f"{word} {unit}", word, 1) if q.count(unit) > 1 else q
        val = vt.get(slot.name) if vt and slot.name in vt else self._form(slot, rng)
        ans = val + (f" {unit}" if unit and unit not in val else "")
        a = rng.choice(["{v}.", "{v}, as it stands.", "The answer is {v}.", "{v} — that is the figure."])
        text = capitalise(q) + "? " + capitalise(a.format(v=ans))
        text = f"{label}: {text}" if label else text
        text = self._values(text, r.fact, rng, vt, skip=slot.name)
        return Draft(text, "wh_qa")

    def _yn_qa(self, r, rng, reg, ctx, vt) -> Optional[Draft]:
        c = r.main
        if "only" in c.pred.split()[:2]:
            return None
        if re.search(r"\b(at most|at least|up to|no more than|no fewer than|a maximum of|a minimum of)\b", c.pred, re.I):
            return None  # a limit is no yes-or-no question: "Can a passenger check at most five bags? Yes."
        label, subj = _topic_label(c.subj)
        you = reg.to_customer and _CUSTOMER_SUBJ.match(subj.strip())
        subj = "you" if you else self.lower(subj)
        neg = c.aux in ("may_not", "cannot", "must_not", "must_never")
        only = c.aux in ("may_only", "can_only")
        q = f"{'can' if c.aux != 'may' or rng.random() < 0.5 else 'may'} {subj} {c.pred}"
        cond = r.lead or r.trail
        if neg:
            a = rng.choice(["No, that is not possible", "No, never", "No — not under any circumstances"])
        elif only and cond:
            a = f"Only {cond[0].lower()} {cond[1]}"
        elif cond:
            a = f"Yes, {cond[0].lower()} {cond[1]}"
        else:
            a = rng.choice(["Yes, that is allowed", "Yes, it can", "Yes"])
        if only and not cond:
            return None
        if cond and not neg:
            text = f"{capitalise(q)}? {a}."
        else:
            tail = f" {cond[0].lower()} {cond[1]}" if cond else ""
            text = f"{capitalise(q)}{tail}? {a}."
        text = f"{label}: {text}" if label else text
        if reg.to_customer:
            text = _you_subject(text)
        return Draft(self._values(text, r.fact, rng, vt), "yn_qa")

    # .. values and polishing .......................................................................
    def _values(self, text: str, fact: Fact, rng: random.Random, vt, skip: str = "") -> str:
        for s in sorted(fact.slots, key=lambda s: -len(s.text)):
            if not s.text or s.name == skip or s.type in (SlotType.enum, SlotType.identifier):
                continue
            if vt and s.name in vt:
                text = replace_value(text, s.text, vt[s.name])
                continue
            if _adjectival(text, s):
                continue
            text = replace_value(text, s.text, self._form(s, rng))
        return text

    def _polish(self, text: str, reg: Register) -> str:
        text = re.sub(r"\s+", " ", text).strip().rstrip(".")
        if reg.controlled:
            text = _expand_contractions(text)
        elif reg.casual:
            text = _contract(text)
        if not re.search(r"[.?!:]$", text):  # a lead-in ending in a colon keeps it: never ":."
            text += "."
        text = finish(text)
        return self._fix_names(text)

    def _fix_names(self, text: str) -> str:
        """Brand and product names keep their capitalisation wherever a frame put them."""
        for name in sorted(self.proper_names, key=len, reverse=True):
            text = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", name, text, flags=re.I)
        return text

    @property
    def proper_names(self) -> set[str]:
        return {w for w in self.proper if len(w) > 2 and (w[:1].isupper() or any(c.isupper() for c in w[1:]))}

    def lower(self, text: str) -> str:
        """Lower-case the first letter unless the first word is a name: one the pack names, an
        acronym, or a hyphenated word whose every part is capitalised ("Wi-Fi", "Rho-Bank"; but
        a prefix is a word: "Non-Rho" -> "non-Rho")."""
        first = text.split(" ", 1)[0]
        if not first or first in self.proper or (first.isupper() and len(first) > 1) or first in ("I", "I'll", "I'm"):
            return text
        parts = re.split(r"[-\u2011]", first)
        if len(parts) > 1 and all(p[:1].isupper() for p in parts) and parts[0].lower() not in _PREFIXES:
            return text
        if any(text.startswith(n) for n in self.proper_names if " " in n):
            return text
        return first[:1].lower() + text[1:]

    def _the(self, name: str) -> str:
        return name if re.match(r"^(the|a|an)\b", name, re.I) else f"the {name}"

    # .. guaranteeing the voiced rule ...............................................................
    def _break_runs(self, fact: Fact, text: str, rng: random.Random, reg: Register, vt,
                    against: Optional[str] = None) -> str:
        """Re-word inside every 6-word run still shared with the statement (or with `against`:
        other statements, one a line). A swap is kept only when the rendition still meets the
        recovery rule of `fact` (values are never touched)."""
        for i in range(30):
            run = first_shared_run(text, fact.statement if against is None else against)
            if run is None:
                return text
            new = self._reword_in(fact, text, run, rng, reg, vt, last_resort=i > 8)
            if new == text:
                new = self._reword_in(fact, text, run, rng, reg, vt, last_resort=True)
            if new == text:
                return text
            text = new
        return text

    def _reword_in(self, fact: Fact, text: str, span: tuple[int, int], rng: random.Random, reg: Register, vt,
                   last_resort: bool) -> str:
        s, e = span
        seg = text[s:e]
        words = set(re.findall(r"[a-z']+", seg.lower()))
        cands: list[Callable[[], str]] = []
        for w in sorted(words):
            for rx, alts, pat in _LEX_BY_WORD.get(w, ()):
                if pat in _LAST_RESORT and not last_resort:
                    continue
                ok = [a for a in alts if not (reg.controlled and "'" in a)]
                if not ok:
                    continue
                for m in rx.finditer(seg):
                    at = s + m.start()
                    if _in_quotes(text, at, s + m.end()):
                        continue  # someone's own words
                    if m.group(0)[:1].isupper() and at > 0 and not re.search(r"(^|[.!?:]\s+)$", text[:at]):
                        continue  # a capital mid-sentence is part of a name ("Merrowgate Online")
                    alt = ok[rng.randrange(len(ok))]
                    rep = _keep_case(m.group(0), m.expand(alt) if "\\" in alt else alt)
                    if _doubles(text[:s] + seg[:m.start()], rep, seg[m.end():] + text[e:]):
                        continue  # "a payment request for" read as the verb: "a payment ask for for"
                    cands.append(lambda a=m.start(), b=m.end(), rep=rep: text[:s] + seg[:a] + rep + seg[b:] + text[e:])
        quotes = [text[a:b] for a, b in quoted_spans(text)]
        for fn in _STRUCTURAL:
            out = fn(text, s, e, rng, reg)
            if out and out != text and [out[a:b] for a, b in quoted_spans(out)] == quotes:
                cands.append(lambda out=out: out)
        rng.shuffle(cands)
        for make in cands:
            new = fix_agreement(_tidy(make()))
            if len(_NO_VERB.findall(new)) > len(_NO_VERB.findall(text)):
                continue  # a noun or a modal where a verb goes: "do I must maintain", "do you fee"
            if _MANGLED.search(new) and not _MANGLED.search(text):  # a swap inside a set phrase: the
                new = re.sub(r"\b(?:no-cost|at no charge) of charge\b", "at no charge", new)  # whole phrase instead
                if _MANGLED.search(new):
                    continue
            if new != text and (vt or recoverable(fact, new)):
                return new
        return text


# An FAQ question put another way (its words are the policy's: a voiced rendition must not copy
# them); each rule: a pattern and its re-wordings, the first that matches is used.
_ASK_OTHERWISE: list[tuple[re.Pattern, list[str]]] = [
    (re.compile(r"^Is there (an?|any) (.+?)( if | for | when | to | on | with |\?)(.*)$", re.S),
     ["Does {a} {b} apply{c}{d}", "Would {a} {b} apply{c}{d}"]),
    (re.compile(r"^Are there (.+?)( if | for | when | to | on | with |\?)(.*)$", re.S),
     ["Do {a} apply{b}{c}", "Would {a} apply{b}{c}"]),
    (re.compile(r"^Do I need to (.*)$", re.S), ["Do I have to {a}", "Is it necessary for me to {a}", "Must I {a}"]),
    (re.compile(r"^Do I have to (.*)$", re.S), ["Do I need to {a}", "Is it necessary for me to {a}"]),
    (re.compile(r"^Can I (.*)$", re.S), ["Am I able to {a}", "Is it possible for me to {a}", "Could I {a}"]),
    (re.compile(r"^How long (does|do|will) (.*)$", re.S), ["How much time {a} {b}", "What is the wait for {b}"]),
    (re.compile(r"^What is (.*)$", re.S), ["What's {a}", "Could you tell me {a}"]),
    (re.compile(r"^When will I (.*)$", re.S), ["How soon will I {a}", "When should I expect to {a}"]),
    (re.compile(r"^When (does|do|is|are) (.*)$", re.S), ["At what point {a} {b}"]),
]


# the asker's persons turned round, in order ("are you" before "you"), never inside quotes
_TO_ME = [(r"\byou are\b", "I am"), (r"\bare you\b", "am I"), (r"\byour\b", "my"), (r"\byou\b", "I")]
_TO_YOU = [(r"\bI am\b", "you are"), (r"\b[Aa]m I\b", "are you"), (r"\bmy\b", "your"), (r"\bI\b", "you")]


def _persons(text: str, swaps: list[tuple[str, str]]) -> str:
    def one(t: str) -> str:
        for p, r in swaps:
            t = re.sub(p, r, t)
        return t
    return outside_quotes(text, one)


def _ask_otherwise(question: str, rng: random.Random) -> str:
    """`question` re-worded at its start ("Is there a fee if ...?" -> "Does a fee apply if
    ...?"), or as it is when no rule fits."""
    for rx, alts in _ASK_OTHERWISE:
        m = rx.match(question)
        if m:
            g = m.groups()
            out = rng.choice(alts).format(**dict(zip("abcd", g)))
            return out if out.endswith("?") else out.rstrip(".") + "?"
    return question


_NO_VERB = re.compile(r"\b(?:do|does|did|to|can|could|will|would|should|may|might|must)(?: (?:I|you|we|they|it|not))? "
                      r"(?:must|can|may|should|shall|fee|fees|sum|figure|article|articles)\b", re.I)
_MANGLED = re.compile(r"(?<!\bfree )\bof charge\b", re.I)


def _doubles(before: str, rep: str, after: str) -> bool:
    """Whether a replacement would write a word twice in a row: its last word again as the
    next word ("ask for" before "for") or its first word as the word before it."""
    words = rep.lower().split()
    if not words:
        return False
    nxt = re.match(r"\s+([\w']+)", after)
    prev = re.search(r"([\w']+)\s+$", before)
    return bool(nxt and nxt.group(1).lower() == words[-1]) or bool(prev and prev.group(1).lower() == words[0])


_PLAIN_VERBS = frozenset("""costs cost reimburses reimburse includes include covers cover receives receive gets get has
have applies apply lasts last starts start remains remain requires require pays pay earns earn expires expire takes
take posts post allows allow charges charge carries carry gives give needs need holds hold runs run ends end""".split())


def plain_subject(c: Optional[Clause]) -> str:
    """The clause's subject when "it" or "they" can stand for it once it has been named: a
    noun phrase without a figure or a quantifier ("TripGuard", "refunds to a credit card",
    not "every new member"), before a modal or a common verb (a reading that split "Lite
    fares include" after "Lite" is not one); "" otherwise."""
    if c is None or c.imperative or not c.subj or len(c.subj.split()) > 6 or re.search(r"\d", c.subj):
        return ""
    if re.match(r"^(?:this|that|these|those|every|each|any|all|no|some|our|your)\b", c.subj, re.I):
        return ""
    if not c.aux and (c.pred.split() or [""])[0].lower() not in _PLAIN_VERBS:
        return ""
    return c.subj


def named_in(subj: str, given: str) -> bool:
    """Whether every content word of a subject (no figure in it) occurs in `given`."""
    if re.search(r"\d", subj) or len(subj.split()) > 6:
        return False
    words = content_words(subj)
    have = set(re.findall(r"[a-z][a-z'-]+", given.lower()))
    return bool(words) and all(w.lower() in have for w in words)


def _tidy(text: str) -> str:
    text = re.sub(r"\s{2,}", " ", text)
    text = re.sub(r"\s+([,.;:?!])", r"\1", text)
    return fix_articles(text.strip())


_FUNC = set("""the a an in on for to of with by at from that which who when if is are was were and or but per each
every as than into under over before after within without unless until while so""".split())
_ITEM = r"[A-Za-z][\w'-]*"


def _next_ok(text: str, end: int) -> bool:
    rest = text[end:].lstrip()
    if not rest or rest[0] in ",.;:?!)\u2014-":
        return True
    nxt = re.match(r"[\w'-]+", rest)
    return bool(nxt) and nxt.group(0).lower() in _FUNC


def _prev_ok(text: str, start: int) -> bool:
    before = text[:start].rstrip()
    if not before or before[-1] in ",;:(\u2014":
        return True
    prv = re.search(r"([\w'-]+)$", before)
    return bool(prv) and prv.group(1).lower() in _FUNC | {"include", "includes", "cover", "covers", "are", "is"}


def _lists(text: str, s: int, e: int, rng: random.Random, reg: Register) -> Optional[str]:
    """Items of a list inside [s, e) in another order ("meals and lodging" -> "lodging and
    meals"; "illness, injury or death" -> "death, illness or injury")."""
    name = r"[A-Z][\w'-]*(?: [A-Z][\w'-]*)+"
    rx = re.compile(rf"\b({name}(?:, {name})*),? (and|or) ({name})\b|\b({_ITEM}(?:, {_ITEM})*),? (and|or) ({_ITEM})\b")
    for m in rx.finditer(text):
        if m.end() < s or m.start() > e:
            continue
        g = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (m.group(4), m.group(5), m.group(6))
        items = g[0].split(", ") + [g[2]]
        if any(i.lower() in _FUNC for i in items) or len(set(items)) < len(items):
            continue
        names = all(i[:1].isupper() for i in items)
        if not (_prev_ok(text, m.start()) and (names or _next_ok(text, m.end()))):
            continue
        if re.match(r"\s*(the|a|an|each|every|this|that|its|their|your)\b", text[m.end():], re.I):
            continue  # the last word takes an object: a verb, not a list item ("the applicant and confirm the")
        new = items[1:] + items[:1]
        if not names and re.search(r"(^|[.!?:]\s+)$", text[:m.start()]):  # the list opens a sentence
            new = [new[0][:1].upper() + new[0][1:]] + [x[:1].lower() + x[1:] for x in new[1:]]
        joined = ", ".join(new[:-1]) + f" {g[1]} " + new[-1]
        return text[:m.start()] + joined + text[m.end():]
    return None


def _genitive(text: str, s: int, e: int, rng: random.Random, reg: Register) -> Optional[str]:
    """"the balance of a dormant account" <-> "a dormant account's balance"."""
    rx = re.compile(r"\b[Tt]he ((?:[a-z][\w-]* )?[a-z][\w-]*) of (the|a|an) ((?:[a-z][\w-]* )?[a-z][\w-]*)\b")
    for m in rx.finditer(text):
        if m.end() < s or m.start() > e or not _next_ok(text, m.end()):
            continue
        if m.group(1).split()[-1] in _FUNC or m.group(3).split()[-1] in _FUNC:
            continue
        det = m.group(2)
        det = _keep_case(m.group(0), det)
        return text[:m.start()] + f"{det} {m.group(3)}'s {m.group(1)}" + text[m.end():]
    rx2 = re.compile(r"\b(the|a|an) ([a-z][\w-]*)'s ((?:[a-z][\w-]* )?[a-z][\w-]*)\b")
    for m in rx2.finditer(text):
        if m.end() < s or m.start() > e or not _next_ok(text, m.end()):
            continue
        the = _keep_case(m.group(0), "the")
        return text[:m.start()] + f"{the} {m.group(3)} of {m.group(1).lower()} {m.group(2)}" + text[m.end():]
    return None


def _generic_any(text: str, s: int, e: int, rng: random.Random, reg: Register) -> Optional[str]:
    """A rule's generic subject: "A reservation ..." -> "Any reservation ..."."""
    m = re.match(r"^(A|An)\s", text)
    if m and s <= 2:
        return "Any " + text[m.end():]
    return None


def _then(text: str, s: int, e: int, rng: random.Random, reg: Register) -> Optional[str]:
    """"If X, Y" -> "If X, then Y"."""
    m = re.match(r"^((?:If|When|Once|Whenever)\b[^,]{3,}),\s(?!then\b)", text)
    if m and m.end() >= s and m.end() <= e + 2:
        return text[:m.end()] + "then " + text[m.end():]
    return None


def _per_unit(text: str, s: int, e: int, rng: random.Random, reg: Register) -> Optional[str]:
    """A rate by its unit: "the per-GB price" -> "the price per GB" (a run may end inside it)."""
    for m in re.finditer(r"(?<![\w-])per-([A-Za-z]+) (price|rate|fee|charge|cost)\b", text):
        if m.end() < s or m.start() > e:
            continue
        return text[:m.start()] + f"{m.group(2)} per {m.group(1)}" + text[m.end():]
    return None


_STRUCTURAL = (_lists, _genitive, _generic_any, _then, _per_unit)


_SUBORDINATE = re.compile(r"\b(?:" + "|".join((*SUBORDINATORS, "that", "whether", "because")) + r")\b", re.I)


def _subordinate(before: str) -> bool:
    """Whether a copula after `before` is a subordinate clause's ("verify that instant issuance
    is enabled"): a note drops the main clause's copula only, never "that instant issuance enabled"."""
    return _SUBORDINATE.search(re.split(r"[,;:.]", before)[-1]) is not None


def telegraph(text: str, reg: Register) -> str:
    """Note style: articles and copulas dropped, "per" as a slash, "and" as "&" (never inside
    quoted words)."""
    def jot(t: str) -> str:
        # articles dropped, but the one a set phrase needs: "the posting date of the charge",
        # never "of charge" (the idiom "free of charge")
        t = re.sub(r"(?<![\w'-])(?<!\bof )(?:the|a|an)\s+(?=[a-z0-9$])|(?<=\bof )(?:the|a|an)\s+(?=[a-z0-9$])(?!charge\b)",
                   "", t)
        t = re.sub(r"\s+per\s+(?=[a-z])", "/", t)
        t = re.sub(r"(?<!who )(?<!that )(?<!which )(?<!\byou )(?<!\bwe )(?<!\bthey )(?<!\bit )\b(is|are) (not )?"
                   r"(?=[a-z]+(?:ed|en)\b)(?!(?:allowed|required|expected|permitted|supposed|entitled|obliged) to\b)",
                   lambda m: m.group(0) if _subordinate(t[:m.start()]) else (m.group(2) or ""), t)
        t = t.replace(" and ", " & ").replace(" without ", " w/o ").replace(" with ", " w/ ")
        if not reg.controlled:
            t = t.replace(" because ", " b/c ").replace(" approximately ", " approx. ")
        return t
    t = re.sub(r"^(?:The|A|An)\s+", "", outside_quotes(text, jot))
    t = re.sub(r"\s{2,}", " ", t).strip()
    return capitalise(t)


# How people name a schedule's column in a sentence (one change is enough: the exact label is
# what the schedule prints, a person says "the maintenance fee per month" or "the overdraft
# charge"). Each rule: a pattern on the label and its rewrite; rules that do not match are skipped.
_LABEL_RULES: list[tuple[re.Pattern, str]] = [
    (re.compile(r"^(daily|monthly) (.+? )?limit$", re.I), lambda m: f"{(m[2] or '')}limit per {'day' if m[1].lower() == 'daily' else 'month'}"),
    (re.compile(r"^daily ((?:(?! for ).)+)$", re.I), lambda m: f"{m[1]} per day"),
    (re.compile(r"^monthly (.+ fee)$", re.I), lambda m: f"{m[1]} per month"),
    (re.compile(r"^annual (.+)$", re.I), lambda m: f"yearly {m[1]}"),
    (re.compile(r"^(.+) fee$", re.I), lambda m: f"{m[1]} charge"),
    (re.compile(r"^(.+) fees (.+)$", re.I), lambda m: f"{m[1]} charges {m[2]}"),
    (re.compile(r"^minimum balance requirement$", re.I), lambda m: "required minimum balance"),
    (re.compile(r"^minimum (opening deposit|amount|down payment.*|balance.*|daily balance.*|cash advance fee|credit limit)$",
                re.I), lambda m: f"smallest {m[1]}"),
    (re.compile(r"^minimum (credit score|annual income|annual business revenue|account age|time in business|term)$", re.I),
     lambda m: f"lowest {m[1]}"),
    (re.compile(r"^maximum (term|vehicle age)$", re.I), lambda m: f"longest {m[1]}" if m[1].lower() == "term" else "oldest vehicle age"),
    (re.compile(r"^maximum (?!term$|vehicle age$)(.+)$", re.I), lambda m: f"highest {m[1]}"),
    (re.compile(r"^(.+) per statement cycle$", re.I), lambda m: f"{m[1]} each statement cycle"),
    (re.compile(r"^(.+) allowed per term$", re.I), lambda m: f"{m[1]} permitted per term"),
    (re.compile(r"^(.+) period$", re.I), lambda m: f"{m[1]} window"),
    (re.compile(r"^(.+) limit$", re.I), lambda m: f"{m[1]} cap"),
]


def label_variants(label: str) -> list[str]:
    """Other ways to name a column `label` in a sentence ("Monthly maintenance fee" ->
    "maintenance fee per month", "monthly maintenance charge"); [] when no rule applies. The
    first word keeps the label's case (an acronym stays upper case)."""
    out = []
    for rx, rewrite in _LABEL_RULES:
        m = rx.match(label.strip())
        if m:
            alt = rewrite(m).strip()
            alt = alt[:1].upper() + alt[1:] if label[:1].isupper() and not alt[:2].isupper() else alt
            if alt and alt.lower() != label.lower() and alt not in out:
                out.append(alt)
    return out


def _property_like(col: str) -> bool:
    return bool(re.search(r"\b(fee|fees|rate|apr|apy|window|limit|minimum|maximum|period|bonus|score|amount|price|term|"
                          r"balance|deposit|charge|cost|allowance|per|value|ratio|percentage|discount|rebate|rebates|"
                          r"required|included|added|data|passes|days|months|years|lines|length|cap|tier|speed|"
                          r"spend|reward|rewards|interest|payment|loan-to-value|penalty|age|count)\b", col, re.I))


def _addressed(text: str) -> bool:
    """Whether words outside quotes speak to the reader ("your balance", "for you")."""
    bare = " ".join(_QUOTED.split(text))
    return bool(re.search(r"\b(?:you|your|yours)\b", bare, re.I))


def _to_them(text: str, subject: bool = False) -> str:
    """The reader said in the third person, outside quotes: "your" -> "their", "you" -> "them"
    (as a subject, "they": "when you are below" -> "when they are below")."""
    def plain(t: str) -> str:
        t = re.sub(r"\byours\b", "theirs", re.sub(r"\byour\b", "their", t))
        return re.sub(r"\byou\b", "they" if subject else "them", t)
    return outside_quotes(text, plain)


def _you_object(text: str) -> str:
    return outside_quotes(text, _you_object_plain)


def _you_object_plain(text: str) -> str:
    text = re.sub(r"\bthe (?:booking )?customer's\b", "your", text)
    text = re.sub(r"\b(?:the|a) (?:booking )?(?:customer|passenger|member|cardholder|account holder)\b", "you", text)
    # a subject this missed ("Whether the customer has provided ..." -> "Whether you has")
    return re.sub(r"\byou (has|is|was|does)\b", lambda m: "you " + {"has": "have", "is": "are", "was": "were",
                                                                  "does": "do"}[m.group(1)], text)


def _you_subject(text: str) -> str:
    return outside_quotes(text, _you_subject_plain)


def _you_subject_plain(text: str) -> str:
    text = re.sub(r"\b(?:the|a|an) (?:booking )?(?:customer|passenger|member|cardholder|applicant|account holder) "
                  r"(has|is|was|does)\b", lambda m: "you " + {"has": "have", "is": "are", "was": "were",
                                                              "does": "do"}[m.group(1)], text)
    text = re.sub(r"\b(?:the|a|an) (?:booking )?(?:customer|passenger|member|cardholder|applicant|account holder) "
                  r"([a-z]+s)\b", lambda m: "you " + base_form(m.group(1)), text)
    return _you_object_plain(text)


_CONTRACT = [(r"\bdo not\b", "don't"), (r"\bdoes not\b", "doesn't"), (r"\bis not\b", "isn't"), (r"\bare not\b",
                                                                                                   "aren't"),
             (r"\bcannot\b", "can't"), (r"\bwill not\b", "won't"), (r"\bwe will\b", "we'll"), (r"\byou are\b",
                                                                                              "you're"),
             (r"\bit is\b", "it's"), (r"\bthat is\b", "that's"), (r"\bwe are\b", "we're"), (r"\bI will\b", "I'll")]


def _contract(text: str) -> str:
    def one(text: str) -> str:
        for p, r in _CONTRACT:
            text = re.sub(p, lambda m, r=r: _keep_case(m.group(0), r), text)
        return text
    return outside_quotes(text, one)


def _expand_contractions(text: str) -> str:
    def one(text: str) -> str:
        for p, r in _CONTRACT:
            text = re.sub(r"\b" + re.escape(r) + r"\b", lambda m, p=p: _keep_case(m.group(0), p.replace("\\b", "")),
                          text)
        return text.replace("I'll", "I will").replace("what's", "what is").replace("What's", "What is")
    return outside_quotes(text, one)


_AUX = {"does", "did", "do", "will", "would", "can", "could", "may", "might", "must", "should", "shall", "to",
        "let", "make", "makes", "made", "help", "helps", "saw", "see", "hear", "heard", "have", "has", "had"}
_AGREE = [(re.compile(r"\b(you|we|they) (has|is|was|does|needs|gets|receives|pays)\b"),
           lambda m: f"{m.group(1)} " + {"has": "have", "is": "are", "was": "were", "does": "do"}.get(
               m.group(2), base_form(m.group(2)))),
          (re.compile(r"\b(agents|customers|passengers|staff members|members|clients|reps) (has|is|does)\b"),
           lambda m: f"{m.group(1)} " + {"has": "have", "is": "are", "does": "do"}[m.group(2)]),
          # a frame's plural modal after a singular pronoun ("for vehicle loans it are not allowed
          # to"), unless an auxiliary governs the verb ("does it have")
          (re.compile(r"\b(\w+ )?(it|he|she) (are|were|have|do)\b", re.I),
           lambda m: m.group(0) if (m.group(1) or "").strip().lower() in _AUX else
           f"{m.group(1) or ''}{m.group(2)} " + {"are": "is", "were": "was", "have": "has", "do": "does"}[
               m.group(3).lower()])]


def fix_agreement(text: str) -> str:
    for rx, fn in _AGREE:
        text = rx.sub(fn, text)
    return text


# --- voiceability ------------------------------------------------------------------------------
VOICE_REGISTERS = ("chat", "manual", "team_chat")


@lru_cache(maxsize=65536)
def _voiceable(fact_json: str) -> bool:
    fact = Fact.model_validate_json(fact_json)
    r = Realiser(set())
    for reg in VOICE_REGISTERS:
        ok = False
        for k in range(VOICE_ATTEMPTS):
            try:
                r.voiced(read(fact), random.Random(f"voiceable:{fact.id}:{k}"), REGISTERS[reg])
                ok = True
                break
            except RealiseError:
                continue
        if not ok:
            return False
    return True


VOICE_ATTEMPTS = 4


def voiceable(fact: Fact) -> bool:
    """Whether the realiser finds a voiced wording of `fact` (no 6-word run of the statement,
    recoverable) in a conversational, a controlled and a staff register. The planner voices
    only such facts; the rest keep canonical renditions. A statement of fewer than six words
    cannot share a run of six."""
    if len(tokens(fact.statement)) < 6:
        return True
    return _voiceable(fact.model_dump_json())


# --- checks ------------------------------------------------------------------------------------
_TOK = re.compile(r"[a-z0-9$%]+")


def tokens(text: str) -> list[str]:
    return _TOK.findall(text.lower().replace("\u00a0", " ").replace("\u2019", "'"))


@lru_cache(maxsize=8192)
def _grams(statement: str, n: int = 6) -> frozenset:
    t = tokens(statement)
    return frozenset(tuple(t[i:i + n]) for i in range(len(t) - n + 1))


# a value form that reads wrong next to its own unit ("24 hours a day" re-worded as "one day a
# day", "60 minutes an hour" as "one hour an hour"), a word doubled or a rate that lost its
# article when a run was broken ("one day day", "seven days week")
_ROUND_TRIP = re.compile(r"\b(day|days) (a|per|each) day\b|\b(hour|hours) (an|per|each) hour\b|"
                         r"\b(week|weeks) (a|per|each) week\b|\b(?P<w>[a-z]+) (?P=w)\b|"
                         r"\b(days|hours|minutes|times) (day|week|month|year|hour)\b", re.I)


def shares_run(text: str, statement: str, n: int = 6) -> bool:
    t = tokens(text)
    g = _grams(statement, n)
    return any(tuple(t[i:i + n]) in g for i in range(len(t) - n + 1))


def first_shared_run(text: str, statement: str, n: int = 6) -> Optional[tuple[int, int]]:
    """Character span in `text` of the first run of n words shared with `statement`."""
    g = _grams(statement, n)
    toks = [(m.group(0), m.start(), m.end()) for m in _TOK.finditer(text.lower())]
    for i in range(len(toks) - n + 1):
        if tuple(t for t, _s, _e in toks[i:i + n]) in g:
            return toks[i][1], toks[i + n - 1][2]
    return None


_STOP = set("""a an the of to in on for and or is are be by with at as from that this it its per each any all not no
must may can will should than then there their they them who which what when was were been has have had do does
did into onto over under only also just our your you we us if unless until after before while so such other same
more most less least very about""".split())


def content_words(text: str) -> list[str]:
    return list(dict.fromkeys(w for w in re.findall(r"[a-z][a-z'-]{2,}", text.lower()) if w not in _STOP))


def _stem(word: str) -> str:
    w = word.lower().strip()
    return w[:max(4, len(w) - 2)] if len(w) > 5 else w


_NUMERIC = (SlotType.money, SlotType.duration, SlotType.count, SlotType.percent, SlotType.date)


def recoverable(fact: Fact, text: str) -> bool:
    """The recovery rule on one rendition: every numeric value in an accepted form and half
    the anchors, or (no values) 70% of the statement's content words."""
    low = text.lower().replace("\u2014", "-")
    numeric = [s for s in fact.slots if s.type in _NUMERIC]
    if numeric:
        if any(slot_matches(s, text) is None for s in numeric):
            return False
        anchors = list(dict.fromkeys(a.lower() for a in fact.anchors if a.strip()))
        need = max(1, math.ceil(len(anchors) * 0.5)) if anchors else 0
        found = sum(1 for a in anchors if re.search(r"(?<![a-z0-9])" + re.escape(_stem(a)), low))
        return found >= need
    words = content_words(fact.statement) or [a.lower() for a in fact.anchors]
    if not words:
        return True
    need = max(2, math.ceil(len(words) * 0.7)) if len(words) > 1 else 1
    found = sum(1 for w in words if re.search(r"(?<![a-z0-9])" + re.escape(_stem(w)), low))
    return found >= need
