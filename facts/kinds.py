"""The kind of a fact, decided from its wording, its context (the list lead it sits under,
its section) and its slots. The tests' labelled sample (tests/fixtures/labelled_sample.txt)
states the conventions this follows:

- prohibition: the statement forbids (not / never / cannot / no ... allowed / not
  refundable, possible or acceptable), outside any if-, so-that- or quoted clause;
- procedure_step: an action in an ordered procedure: a numbered item that is an action,
  an action under a procedure or how-to heading, any item of a checklist, or an action
  sequenced by first / then / next;
- eligibility: what must hold for something to be allowed ("only ... if", "must already",
  "required:", items under "any/all of the following is true");
- definition: what something is, has, contains or means: schema and attribute lists, types
  ("there are three ..."), tool, parameter and category descriptions ("`name`: ..."),
  examples, statements of a definitions section (domain basics, glossary);
- value: a declarative statement whose main claim is an amount, limit, rate, count, time
  or date of a thing;
- rule: any other norm or obligation (typically addressed to the agent or the user).
"""
from __future__ import annotations

import re
from typing import Optional

from .models import NUMERIC_TYPES, FactKind, Slot, SlotType

DEFINE_THERE = re.compile(r"^(?:[^,]{0,60},\s*)?there\s+(?:are|is)\b(?!\s+no\s+need)", re.IGNORECASE)
MODAL = re.compile(r"\b(?:must|should|shall|may|might|can|could|will|would|need(?:s)?\s+to|have\s+to|has\s+to|"
                   r"required)\b", re.IGNORECASE)
_PROHIBIT = re.compile(
    r"\b(?:must\s+not|mustn't|cannot|can\s*not|can't|never|not\s+(?:be\s+)?allowed|not\s+permitted|do\s+not|don't|"
    r"does\s+not\s+allow|may\s+not|should\s+not|shouldn't|prohibited|forbidden|(?:is|are)\s+not\s+possible|"
    r"no\s+\w+\s+(?:is|are)\s+allowed|(?:is|are)\s+not\s+(?:refundable|acceptable|accepted|eligible|transferable)|"
    r"will\s+not\s+be\s+able|(?:can|may)\s+\w+\s+but\s+not)\b",
    re.IGNORECASE)
# Clauses whose negation does not forbid anything: conditions, purposes, quotes.
_SOFT_CLAUSE = re.compile(r"\b(?:if|unless|when|whether|so\s+that|so\s+you|to\s+avoid|in\s+order\s+to|that)\b[^,;:.]*"
                          r"|'[^']*'|\"[^\"]*\"|\([^)]*\)", re.IGNORECASE)
_ELIGIBLE = re.compile(
    r"\b(?:eligibility|(?:is|are|be|not|in)eligible|eligible\s+(?:for|to)|(?<!and\s)only\s+if|only\s+when|only\s+(?:be\s+)?\w+ed\s+if|qualif(?:y|ies|ied)|must\s+already|"
    r"must\s+have\s+enough|requirements?|can\s+only\s+\w+(?:\s+\w+)?\s+on|only\s+(?:on|in|at|to|by)|"
    r"(?:will\s+)?not\s+be\s+available|(?:is|are)\s+(?:not\s+|un)available|"
    r"required\s+(?:to\s+(?:use|open|apply|qualify|enroll|be\s+eligible)|for))\b|\brequired\s*:|^only\b.*\bif\b|"
    r"^(?:minimum|maximum)\b[^:]*\brequired\b",
    re.IGNORECASE)
_ELIGIBLE_LEAD = re.compile(r"\b(?:any|all|each|one|both)\s+of\s+the\s+following\s+(?:is|are|must\s+be|hold|holds)"
                            r"(?:\s+(?:true|met))?|\b(?:ensure|confirm|check)\s+(?:that\s+)?all\s+of\s+the\s+following"
                            r"|\beligib\w*|\brequirements?\b", re.IGNORECASE)
_SCHEMA_LEAD = re.compile(r"\b(?:containing|contains?|includes?|including|has|have|specif(?:y|ies)|consists?\s+of|"
                          r"attributes?|fields?|properties|parameters|columns)\b[^:]*:\s*$", re.IGNORECASE)
_STEPS_LEAD = re.compile(r"\b(?:follow\s+these\s+steps|the\s+following\s+steps|steps?\b[^:]*:|you\s+(?:should|must|need"
                         r"\s+to|have\s+to):|to\s+do\s+so\b|do\s+the\s+following)", re.IGNORECASE)
_PROCEDURE_HEADING = re.compile(r"\b(?:procedure|steps?|process|how\s+to|workflow|instructions?|playbook|runbook|"
                                r"protocol)\b", re.IGNORECASE)
_ELIGIBILITY_HEADING = re.compile(r"\b(?:when\s+to\s+use|prerequisites?|requirements?|eligibility|who\s+can|"
                                  r"qualif\w*)\b", re.IGNORECASE)
_COUNTS_TOWARD = re.compile(r"\b(?:counts?\s+(?:toward|towards|against)|appl(?:y|ies)\s+to\s+the|(?:is|are)\s+included\s+in)\b",
                            re.IGNORECASE)
_CHECKLIST_HEADING = re.compile(r"\bcheck\s*list\b", re.IGNORECASE)
_DEFINITIONS_HEADING = re.compile(r"\b(?:domain\s+basics?|definitions?|glossary|terminology|data\s+model|schema|"
                                  r"key\s+concepts|entities)\b", re.IGNORECASE)
_SEQUENCE = re.compile(r"^(?:first|then|next|finally|afterwards|after\s+that|second|third|lastly)\b|"
                       r"(?:,|\band)\s*then\s+[a-z]+\b|"
                       r"\b(?:must|should|will|can|need\s+to)\s+(?:first|then|next)\b|\bfirst\b.*\bthen\b",
                       re.IGNORECASE)
_TERM_HEAD = re.compile(r"^(?:[A-Za-z_][\w.]*\([^)]*\)|[A-Za-z][a-z0-9]*(?:_[A-Za-z0-9]+)+|'[^']+'|\"[^\"]+\"|“[^”]+”)"
                        r"(?:\s*\([^)]*\))?\s*(?::|—|–|\s-)\s+\S")
_EXAMPLE = re.compile(r"^(?:for\s+example|for\s+instance|e\.g\.|example:)", re.IGNORECASE)
_DEFINES = re.compile(r"^[^,;:]{1,60}?\b(?:means|refers?\s+to|is\s+defined\s+as|stands\s+for|indicates|signifies)\b",
                      re.IGNORECASE)
_FORMULA = re.compile(r"\s[=×]\s")
# "is [value not available]", "an APR of [value not available]": a value the source left out
_PLACEHOLDER = re.compile(r"(?:\bis|\bof|\bfor|\bat|:)\s+\$?\[[^\]]*\b(?:value|amount|rate|tbd)\b[^\]]*\]",
                          re.IGNORECASE)
_PERSON = re.compile(r"^(?:you|we|agents?|users|customers?|staff|(?:the|a|an|each|every|any)\s+(?:booking\s+)?"
                     r"(?:agent|user|customer|member|passenger|banker|employee|representative|account\s+holder)s?)\b",
                     re.IGNORECASE)
_FINITE_VERB = re.compile(
    r"\b(?:is|are|was|were|be|has|have|had|does|do|did|pays?|travels?|gets?|receives?|appl(?:y|ies)|covers?|costs?|"
    r"earns?|includes?|requires?|takes?|needs?|goes|go|remains?|returns?|counts?|uses?|holds?|becomes?|stays?|"
    r"qualif(?:y|ies)|expires?|keeps?|loses?|sees?|appears?|changes?|starts?|ends?|runs?|stops?|owes?|allows?|"
    r"charges?|refunds?|makes?|gives?|moves?|books?|cancels?|adds?|removes?|lasts?|works?|means?|contains?|"
    r"arrives?|posts?|accrues?|renews?|waives?|reach(?:es)?|exceeds?|fails?|fall|falls|lets?|sends?|shows?)\b",
    re.IGNORECASE)
_OBLIGATION = re.compile(r"\b(?:must|should|shall|needs?\s+to|have\s+to|has\s+to|required\s+to)\b", re.IGNORECASE)
_PERMISSION = re.compile(r"\b(?:can|could|may|might)\b", re.IGNORECASE)
_LEAD_CLAUSE = re.compile(r"^(?:(?:if|when|whenever|once|after|before|upon|while|as|to|for|with|in|during|unless|"
                          r"otherwise|generally|in\s+particular)\b(?:[^,]|(?<=\d),(?=\d)){0,120},\s*"
                          r"|[A-Za-z]+(?:\s+[A-Za-z]+){0,3},\s+)", re.IGNORECASE)
_LEADERS = re.compile(r"^(?:(?:then|first|next|finally|also|always|please|afterwards|now|second|third|lastly|so|and)"
                      r"[,:]?\s+)+", re.IGNORECASE)
_IMPERATIVE = frozenset("""verify check confirm ask use call collect obtain provide review ensure inform transfer open
offer refund document escalate explain calculate compare create contact send submit select update record follow
validate identify set add remove apply capture discuss authenticate invoke retrieve look locate notify remind tell
determine process issue approve deny decline reject cancel modify book charge waive credit debit assess close advise
gather note log place request reset unlock lock enter navigate click choose help make take get list read
count let have be do run attach print sign complete schedule arrange deliver return replace mark flag search
encourage keep save share configure establish prepare maintain monitor track report reverse investigate remember
continue proceed acknowledge indicate plan avoid toggle turn reboot restart restore disable enable apply grant
resume suspend lift refuel proceed stop start skip retry repeat test adjust hold reduce switch link paste pause
consider assign allocate specify fill attempt visit present carry
wait contact escalate re-run rerun reinstall update upgrade downgrade install uninstall move split submit upload""".split())
_OBJECT_START = re.compile(r"^[a-z]+\s+(?:the|a|an|your|their|its|his|her|any|all|this|that|these|those|it|them|each|every|"
                           r"to)\b", re.IGNORECASE)
_NOT_VERB = frozenset("""the a an this that these those each every all any some no your our their its his her my
it they we you he she there here one both either neither such only also most more less many much few if when whenever
unless once after before while since because although though whether for with in on at by from to as per upon during
within without under over into""".split())
_NOT_SUBJECT = frozenset("if when only unless that which who whom where once after before while since because "
                         "it this".split())
_DEFINE = re.compile(r"^[^,;:]{1,80}?\b(?:is|are|means|mean|refers?\s+to|is\s+defined\s+as|consists?\s+of|returns|"
                     r"contains|includes|covers|lists|shows|describes|holds|represents|stores|records|tracks|provides)\b",
                     re.IGNORECASE)


def is_imperative(text: str) -> bool:
    """Opens with a verb in the base form: a known instruction verb, or a word the grammar
    shows to be one ("Reduce any items", "Pause the line")."""
    t = _LEADERS.sub("", text.strip())
    adv = re.match(r"([A-Za-z]+ly)\s+", t)
    if adv and adv.group(1).lower() not in _IMPERATIVE | {"only"}:
        t = t[adv.end():]  # "Periodically review ..."
    m = re.match(r"([A-Za-z][a-z-]*)", t)
    if not m or re.match(r"[A-Za-z]+\s+(?:is|are|was|of)\b", t):
        return False
    w = m.group(1).lower()
    return w in _IMPERATIVE or (w not in _NOT_VERB and not w.endswith(("s", "ed", "ly")) and bool(_OBJECT_START.match(t)))


def main_clause(text: str) -> str:
    """The text after a leading subordinate clause or short adverbial ("If X, do Y" -> "do Y")."""
    t = _LEADERS.sub("", re.sub(r"\s*\([^)]*\)", "", text).strip())
    for _ in range(2):
        m = _LEAD_CLAUSE.match(t)
        if not m or len(t) - m.end() < 3:
            break
        t = t[m.end():]
    return t


def _outside_soft(text: str) -> str:
    return _SOFT_CLAUSE.sub(" ", text)


def classify_kind(statement: str, child: str, *, prefix: str = "", numbered: bool = False, item: bool = False,
                  section: Optional[list[str]] = None, slots: Optional[list[Slot]] = None,
                  table: bool = False) -> FactKind:
    section = section or []
    slots = slots or []
    has_value = any(s.type in NUMERIC_TYPES or s.type == SlotType.date for s in slots)
    if table:
        return FactKind.value if has_value else FactKind.definition
    body = child.strip()
    core = main_clause(body)
    heading = section[-1] if section else ""
    schema_lead = any(_SCHEMA_LEAD.search(seg + ":") for seg in re.split(r":\s+", prefix.rstrip(": ")) if seg)
    if _TERM_HEAD.match(body) or (schema_lead and len(body.split()) <= 12 and not MODAL.search(body)
                                  and not (is_imperative(body) and _OBJECT_START.match(body))):
        return FactKind.definition
    if re.match(r"^[^:]{2,60}:\s*(?:yes|no|true|false|available|included|not\s+available)\.?$", body, re.IGNORECASE) \
            and not _ELIGIBLE.search(body):
        return FactKind.definition  # a feature flag: "Virtual card management available: Yes"
    if _PROHIBIT.search(_outside_soft(body)) or (prefix and _PROHIBIT.search(_outside_soft(prefix))):
        return FactKind.prohibition
    if prefix and _ELIGIBLE_LEAD.search(prefix):
        return FactKind.eligibility
    action = is_imperative(core) or is_imperative(body)
    if item and _CHECKLIST_HEADING.search(heading):
        return FactKind.procedure_step
    if _SEQUENCE.search(body) or (numbered and action) or (item and action and (
            _PROCEDURE_HEADING.search(heading) or (prefix and _STEPS_LEAD.search(prefix)))):
        return FactKind.procedure_step
    if action or re.match(r"^(?:always|never)\b", body, re.IGNORECASE) or re.search(r"\bno\s+need\s+to\b", body, re.I):
        return FactKind.rule
    if _ELIGIBLE.search(statement) or (item and not has_value and _ELIGIBILITY_HEADING.search(heading)):
        return FactKind.eligibility
    if _COUNTS_TOWARD.search(core):
        return FactKind.definition  # what counts toward a limit, not the limit itself
    if DEFINE_THERE.match(body) or _EXAMPLE.match(body) or _DEFINES.match(body) or _FORMULA.search(body):
        return FactKind.definition
    if re.match(r"^no\s+.*\bfees?\b", body, re.IGNORECASE):
        return FactKind.value
    if not has_value and any(_DEFINITIONS_HEADING.search(s) for s in section):
        return FactKind.definition
    person = bool(_PERSON.match(core))
    soft_core = _outside_soft(core)
    limit = any(s.qualifier for s in slots if s.type in NUMERIC_TYPES)
    claimed = [s for s in slots if (s.type in NUMERIC_TYPES or s.type == SlotType.date) and s.text in soft_core]
    placeholder = bool(_PLACEHOLDER.search(core))  # "[value not available]": a value the source left out
    if (claimed or placeholder) and not _OBLIGATION.search(soft_core) and (
            limit or not (person and _PERMISSION.search(soft_core))):
        return FactKind.value
    if item and not person and not MODAL.search(soft_core) and not _FINITE_VERB.search(core):
        return FactKind.definition  # a noun phrase in a list: "A list of dispute records for the user"
    if person or MODAL.search(soft_core):
        return FactKind.rule
    dm = _DEFINE.match(core)
    if dm:
        subject = dm.group(0).split()
        if len(subject) <= 8 and not (set(w.lower() for w in subject) & _NOT_SUBJECT):
            return FactKind.definition
    return FactKind.rule
