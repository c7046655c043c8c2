"""A fact read into parts (`read`): a catalog cell becomes (row, column, value, measure); a
policy sentence becomes a main clause (subject, modal, predicate) with its condition clauses
and its typed values. Also the surface forms a value may take (`value_forms`) and the
quoted spans a re-wording must leave alone (`quoted_spans`). The realiser
(`transforms.realise`) words these parts."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Optional

from facts.match import STOP_WORDS
from facts.models import Fact, Slot, SlotType
from facts.surface import int_to_words, surface_forms, unit_words
from facts.values import slot_matches

from .grammar import needs_an


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
IMPERATIVE = re.compile(r"^(Transfer|Confirm|Ask|Verify|Check|Email|Record|Authenticate|Restart|Escalate|Offer|Tell|"
                         r"Explain|Quote|Refund|Apply|Send|Cancel|Issue|Add|Remove|Update|Open|Close|Read|Collect|"
                         r"Process|Review|Request|Direct|Advise|Inform|Let|Make|Use|Do|Never|Always|Keep|Log|Note|"
                         r"Flag|Share|Suggest|Walk|Reset|Re-send|Resend|Look|Give|Waive|Place|Submit|Call|"
                         r"Mention|Repeat|Say|Book|Rebook|Change|Reissue|Credit|Route|Arrange|Schedule|Decline|Deny|"
                         r"Approve|Accept|Reject|Return|Replace|Order|Enroll|Enrol|Register|Set|Run|Complete|Take|"
                         r"Start|Stop|Skip|Count|Follow|Help|Contact|Notify|Remind|Warn|Document|Refresh|Ensure|"
                         r"Provide|Obtain|Gather|Validate|Enter|Select|Click|Tap|Navigate|Wait|Try|Retry|Locate|"
                         r"Search|Capture|Inspect|Attach|Upload|Enable|Disable|Activate|Deactivate|Freeze|Unfreeze|"
                         r"Lock|Unlock)\b")
CUSTOMER_SUBJ = re.compile(r"^(?:the|a|an|every|each|any)?\s*(?:booking\s+)?(customer|customers|passenger|passengers|"
                            r"member|members|applicant|applicants|account holder|account holders|cardholder|"
                            r"cardholders|client|clients|shopper|shoppers|subscriber|subscribers|traveller|travellers|"
                            r"traveler|travelers)$", re.I)
STAFF_SUBJ = re.compile(r"^(?:the|a|an|every|each|any)?\s*(?:[A-Z][\w-]* )*(agent|agents|staff|staff members?|"
                         r"employee|employees|representative|representatives|teammate|teammates|we)$", re.I)


@dataclass
class Clause:
    subj: str = ""
    aux: str = ""          # modal key ("" = a lexical verb starts the predicate)
    pred: str = ""         # predicate after the modal
    imperative: bool = False

    @property
    def plural(self) -> bool:
        return is_plural(self.subj)


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


HEAD_STOP = {"per", "for", "on", "of", "to", "at", "in", "by", "that", "above", "below", "before", "after", "with",
              "from", "under", "over", "between", "within"}


_TOPIC_LABEL = re.compile(r"^(?P<label>[^:]{2,60}):\s+(?=[A-Z])")


def topic_label(subj: str) -> tuple[str, str]:
    """A subject read with the label before it ("Operator surcharges: The ATM owner") as
    (label, subject): the label names the topic, the clause's subject is what follows; ("",
    subj) when there is none. A question asks about the subject ("can the ATM owner charge
    ...?", never "can operator surcharges: The ATM owner ...")."""
    m = _TOPIC_LABEL.match(subj.strip())
    return (m.group("label"), subj.strip()[m.end():]) if m else ("", subj)


def number_words(noun: str) -> dict[str, str]:
    """Words that agree with `noun` in a frame: {is}, {comes}, {applies}, {it}, and the
    article {a} ("a " for a singular noun, none for a plural: "free employee cards")."""
    if is_plural(noun):
        return {"is": "are", "comes": "come", "applies": "apply", "it": "they", "a": ""}
    return {"is": "is", "comes": "comes", "applies": "applies", "it": "it", "a": "a "}


def is_plural(subj: str) -> bool:
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
# screen): a re-wording never splits a clause inside them nor swaps a word in them, since a
# swap there misquotes the speaker and can break its grammar ("'We may be experiencing ...'"
# read as a modal and a noun to swap). A single quote opens after a space or colon and closes
# before a space or stop, so an apostrophe ("customer's") opens nothing. A bracketed
# placeholder of the source ("[value not available]") is kept as printed: it is not prose.
QUOTED = re.compile(r"\"[^\"]+\"|\u201c[^\u201d]+\u201d|(?:(?<=^)|(?<=[\s:(]))'[^']+'(?=[\s.,;:!?)]|$)"
                     r"|\u2018[^\u2019]+\u2019(?=[\s.,;:!?)]|$)"
                     r"|\[[^\]\n]{1,80}\]")  # a placeholder the source prints ("[value not available]"), verbatim


def quoted_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in QUOTED.finditer(text)]


def in_quotes(text: str, start: int, end: Optional[int] = None) -> bool:
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
    m = IMPERATIVE.match(text)
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
            if m and not in_quotes(text, at, at + m.end()):
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
        if in_quotes(text, len(subj) + 1, len(subj) + 1 + len(w)):
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


PREFIXES = {"non", "pre", "post", "anti", "co", "re", "sub", "multi", "inter", "intra", "over", "under",
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
    is None), or None to keep reading it as a cell. A row whose section and column headings
    are phrases, not measures ("How your account contributes": the tau2 banking_knowledge
    documents), cannot be realised from its parts as (row, column, value): the column would
    be read as a measure ("the how your account contributes is 2 trees ..."). So:
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
        if _ROW_VERB.search(row) or row.split()[-1].lower() in HEAD_STOP:
            text = f"{row} {v}"
        else:
            the = "" if re.match(r"^(the|a|an|your|our|my)\b", row, re.I) or row[:1].isupper() and \
                len(words) > 1 and all(w[:1].isupper() for w in words) else "the "
            text = f"{the}{row} {'are' if is_plural(words[-1]) else 'is'} {v}"
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
    if first.lower() in STOP_WORDS | {"up", "yes", "no", "cannot", "only", "each", "every", "none"} and first != "I":
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


def adjectival(text: str, slot: Slot) -> bool:
    """'a 24-hour window': the value is used as a hyphenated modifier."""
    i = text.find(slot.text)
    return i >= 0 and bool(re.match(r"-?[a-z]+-", slot.text[len(str(slot.value)):] or "")) or \
        bool(re.search(re.escape(slot.text) + r"-\w", text)) or ("-" in slot.text and slot.type == SlotType.duration)
