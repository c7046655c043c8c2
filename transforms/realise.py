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

import random
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable, Optional

from facts.match import NUMERIC, carries, keeps_bounds
from facts.models import Fact, Slot, SlotType, replace_value
from facts.runs import first_shared_run, shares_run, words

from .attributes import voice_attribute
from .grammar import CLAUSE_HEADING, base_form, capitalise, finish, modal, third_person
from .lexicon import LAST_RESORT, LEX_BY_WORD, keep_case
from .reading import (CUSTOMER_SUBJ, HEAD_STOP, IMPERATIVE, PREFIXES, STAFF_SUBJ, Clause, Reading, adjectival,
                      in_quotes, is_plural, number_words, quoted_spans, read, topic_label, value_forms)
from .registers import REGISTERS, Register
from .rewording import (MANGLED, NO_VERB, STRUCTURAL, TO_ME, TO_YOU, addressed, ask_otherwise, contract, doubles,
                        expand_contractions, fix_agreement, label_variants, named_in, plain_subject, property_like,
                        telegraph, tidy, to_them, turn_persons, you_object, you_subject)

if TYPE_CHECKING:  # pragma: no cover
    from .situations import Customer, Rec


# a bound said before a value ("up to 7 business days", "at least $500"): a wh-question asks
# for the value without it and the answer says it ("How long ...? Up to seven business days.")
_BOUND_WORDS = (r"(?:up to|at most|at least|no more than|no less than|no fewer than|a maximum of|a minimum of|"
                r"more than|less than|fewer than)")
_BOUND_BEFORE = rf"(\s{_BOUND_WORDS})?"


class RealiseError(ValueError):
    """No wording of a fact met the voiced or recovery rule (names the fact)."""


# a value form that reads wrong next to its own unit ("24 hours a day" re-worded as "one day a
# day", "60 minutes an hour" as "one hour an hour"), a word doubled or a rate that lost its
# article when a run was broken ("one day day", "seven days week")
_ROUND_TRIP = re.compile(r"\b(day|days) (a|per|each) day\b|\b(hour|hours) (an|per|each) hour\b|"
                         r"\b(week|weeks) (a|per|each) week\b|\b(?P<w>[a-z]+) (?P=w)\b|"
                         r"\b(days|hours|minutes|times) (day|week|month|year|hour)\b", re.I)


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
                        (value_text or carries(fact, before + text) and keeps_bounds(fact, before + text)):
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
            what, whom = self.cell_parts(r)
            val = self.cell_value(r, rng, value_text, canonical=True)
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
            fr = [("cell_plain", self._cell_plain), ("cell_meaning", self._cell_meaning),
                  ("cell_meaning", self._cell_meaning), ("cell_value_first", self._cell_value_first)]
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
    def cell_value(self, r: Reading, rng: random.Random, value_text, canonical: bool = False) -> str:
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
        own = words(s.text)
        alt = [x for x in forms if x != s.text and (not own or words(x)[:1] != own[:1])]
        return rng.choice(alt or [x for x in forms if x != s.text] or forms)

    def _measure_np(self, r: Reading) -> str:
        c = r.cell
        col = c["col"]
        if property_like(col):
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

    def cell_parts(self, r: Reading, rng: Optional[random.Random] = None) -> tuple[str, str]:
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
        if property_like(col) or re.search(r"\b(before|deadline|time|delivery|validity|entries|cards)\b", col, re.I):
            return self.lower(col), row
        whom = f"{row} and {col}" if len(col.split()) == 1 else f"{row} with a {self.lower(col)}"
        what = self._measure_np(r)
        if re.search(r"(fees|charges|rates|limits|amounts)$", what):
            what = what[:-1]
        return what, whom

    def _cell_plain(self, r, rng, reg, ctx, vt) -> Draft:
        what, whom = self.cell_parts(r, rng)
        val = self.cell_value(r, rng, vt)
        t = rng.choice(["the {what} for {whom} {is} {val}", "for {whom}, the {what} {is} {val}",
                        "the {what} on {whom} {comes} to {val}", "the {what} that {applies} to {whom} {is} {val}"])
        return Draft(t.format(what=what, whom=whom, val=val, **number_words(what)), "cell_plain")

    def _cell_meaning(self, r, rng, reg, ctx, vt) -> Optional[Draft]:
        """The attribute said by what it means (`transforms.attributes`: "The Fleet Card costs
        $95 a year", "Premier Checking needs an opening deposit of at least $100"), never as
        "X has a <attribute> of <value>"; None when no class of attribute fits."""
        what, whom = self.cell_parts(r)  # the schedule's own label: its class is read from it
        val = self.cell_value(r, rng, vt)
        slot = next((s for s in r.fact.slots if s.type in (SlotType.money, SlotType.duration, SlotType.count,
                                                            SlotType.percent) and s.text), None)
        product = bool(re.search(r"(product|card|loan|account|plan|certificate|mortgage|top-up|pass)",
                                 r.cell["row_attr"], re.I)) and not re.search(r"\s(?:with|and)\s", whom)
        text = voice_attribute(what, whom, val, slot, product, reg, rng)
        return None if text is None else Draft(capitalise(text), "cell_meaning")

    def _cell_value_first(self, r, rng, reg, ctx, vt) -> Draft:
        what, whom = self.cell_parts(r, rng)
        val = self.cell_value(r, rng, vt)
        t = rng.choice(["{val} is the {what} for {whom}", "{val} — that is the {what} for {whom}",
                        "{val} is what the {what} {comes} to for {whom}"])
        return Draft(t.format(what=what, whom=whom, val=val, **number_words(what)), "cell_value_first")

    def _cell_qa(self, r, rng, reg, ctx, vt) -> Draft:
        what, whom = self.cell_parts(r, rng)
        val = self.cell_value(r, rng, vt)
        q = rng.choice(["What {is} the {what} for {whom}?", "The {what} for {whom}?", "How about the {what} for {whom}?"])
        # the answer names what it is ("The limit is $800."): a bare "It is 5 dollars." recurs
        # across a domain's files
        words = what.split()
        cut = next((i for i, x in enumerate(words) if i and x in HEAD_STOP), len(words))
        head = " ".join(x for x in words[max(0, cut - 2):cut] if x.lower() not in ("the", "a", "an")) or "figure"
        if is_plural(head.split()[-1]) or is_plural(what):
            a = rng.choice(["{val}, then.", "{val} in that case.", "{val} is the number."])
        elif reg.controlled:  # the value last: two wrapped answers never end on the same line
            a = rng.choice(["the {head} is {val}.", "that {head} is {val}."])
        else:
            a = rng.choice(["the {head} is {val}.", "that {head} is {val}.", "{val} is the {head}.",
                            "{val}: that's the {head}.", "it's {val}, that {head}."])
        n = number_words(what)
        return Draft(q.format(what=what, whom=whom, **n) + " " + capitalise(a.format(val=val, head=head, **n)), "cell_qa")

    def _cell_yours(self, r, rng, reg, ctx, vt) -> Draft:
        what, whom = self.cell_parts(r, rng)
        val = self.cell_value(r, rng, vt)
        name = ctx.customer.first if ctx and ctx.customer else ""
        t = rng.choice(["{name}, for {whom} the {what} {is} {val}", "in your case, with {whom}, the {what} {is} {val}",
                        "for you, {name} — {whom} — the {what} {comes} to {val}"])
        return Draft(t.format(what=what, whom=whom, val=val, name=name, **number_words(what)), "cell_yours")

    # prose
    def _clause(self, c: Clause, rng: random.Random, reg: Register, vt, fact: Fact, lower: bool = False) -> str:
        """The main clause in the register's persons, with another modal."""
        subj, pred = c.subj, c.pred
        person = "3"
        plural = c.plural
        if c.imperative:
            return self._imperative(c.pred, rng, reg)
        if self.given and plain_subject(c) and named_in(subj, self.given) and \
                not CUSTOMER_SUBJ.match(subj.strip()) and not STAFF_SUBJ.match(subj.strip()):
            subj = "they" if plural else "it"  # the question just named it
        if reg.to_customer and CUSTOMER_SUBJ.match(subj.strip()):
            subj, person, plural = "you", "2", True
        elif not reg.controlled and STAFF_SUBJ.match(subj.strip()) and reg.speaker in ("agent", "manager",
                                                                                       "colleague"):
            subj, person, plural = ("we", "1p", True) if reg.to_customer or rng.random() < 0.5 else ("you", "2", True)
        elif reg.to_customer and re.match(r"^(the|a|an)\s+(reservation|booking|order|account|card|line|loan|policy|"
                                          r"device|plan|return|refund)\b", subj, re.I) and rng.random() < 0.5:
            subj = re.sub(r"^(the|a|an)\b", "your", subj, count=1, flags=re.I)
        if reg.to_customer:  # an instruction list after a colon stays the staff's own
            head, colon, tail = pred.partition(": ")
            pred = you_object(head) + colon + tail
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
            if addressed(rest):
                # said to the customer ("Keep your balance at or above $5,000"): the customer
                # does it, not staff ("the agent keeps your balance"); its conditions follow (`_cond`)
                subj = rng.choice(["the customer", "customers"])
                rest = to_them(rest)
                return f"{subj} {third_person(low) if subj == 'the customer' else low}{rest}"
            subj = rng.choice(["the agent", "staff", "the team member handling the case"])
            v = third_person(low) if subj != "staff" else low
            if subj != "staff":  # "refreshes the card list and verifies that ...": both verbs agree
                rest = re.sub(r"(\s(?:and|then|or|and then)\s)([a-z]+)\b",
                              lambda m: m.group(1) + (third_person(m.group(2)) if IMPERATIVE.match(
                                  capitalise(m.group(2))) else m.group(2)), rest, count=1)
            return f"{subj} {v}{rest}"
        if reg.to_customer:
            rest = you_object(rest)
            return rng.choice([f"we {low}{rest}", f"I'll {low}{rest}", f"what we do is {low}{rest}"])
        return rng.choice([f"please {low}{rest}", f"make sure you {low}{rest}", f"remember to {low}{rest}",
                           f"you {low}{rest}", f"always {low}{rest}" if low not in ("never",) else f"{low}{rest}"])

    def _cond(self, conj: str, cond: str, reg: Register, main: Optional[Clause] = None) -> tuple[str, str]:
        """A condition in the register's persons; beside an instruction to the customer that a
        controlled register says of the customer (`_imperative`), "you" becomes "they"."""
        if reg.to_customer:
            cond = you_subject(cond)
        elif reg.controlled and main is not None and main.imperative and addressed(main.pred):
            cond = to_them(cond, subject=True)
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
        q = ask_otherwise(r.faq, rng)
        if reg.to_customer and not reg.controlled:
            q = turn_persons(q, TO_YOU)
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
        numeric = any(s.type in NUMERIC for s in fact.slots)
        if self._wh_target(r) is not None:
            d = self._wh_qa(r, rng, reg, None, None)
        elif numeric:
            return None  # a yes/no question would put the answer's value in the asker's mouth
        elif r.main and r.main.subj and r.main.aux in ("may", "can", "may_not", "cannot", "must_not", "must_never",
                                                      "must", "is", "is_not"):
            c = r.main
            # a label before the clause ("Operator surcharges: The ATM owner may charge ...") is
            # the topic, not the subject: "can the ATM owner charge ...?"
            bare = topic_label(c.subj)[1]
            you = CUSTOMER_SUBJ.match(bare.strip())
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
        q = topic_label(d.text.split("?")[0] + "?")[1]  # a customer asks without the policy's label
        if first_person:
            q = turn_persons(q, TO_ME)
        return finish(fix_agreement(q))

    def _wh_target(self, r: Reading) -> Optional[tuple[Slot, str]]:
        """The value slot a wh-question can ask for: its value phrase ends the main clause."""
        if r.main is None or r.main.imperative or not r.main.subj or r.second is not None:
            return None
        pred = r.main.pred
        for s in r.fact.slots:
            if s.type not in (SlotType.money, SlotType.duration, SlotType.count, SlotType.percent) or not s.text:
                continue
            m = re.search(r"(?:\s(?:for|of|at|within|in|to))?" + _BOUND_BEFORE + r"\s" + re.escape(s.text) +
                          r"(?:\s[a-z]+)?$", " " + pred)
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
        label, subj = topic_label(c.subj)
        person_you = reg.to_customer and CUSTOMER_SUBJ.match(subj.strip())
        if person_you:
            subj = "you"
        # the value belongs to a noun of the clause ("... is assessed a per-transaction fee of
        # $2.50"): the question asks for that noun, never "how much is any transaction ...
        # assessed a per-transaction fee"; a person is no "for" ("how much is the late fee")
        owned = (re.match(r"^(?:[a-z]+\s+){1,2}?(?:a|an|the)\s+([\w -]+)$", stem)
                 if phrase.lstrip().startswith("of ") and slot.type != SlotType.count else None)
        if owned:
            noun = owned.group(1).strip()
            whose = "" if person_you or CUSTOMER_SUBJ.match(subj.strip()) or STAFF_SUBJ.match(subj.strip()) \
                else f" for {self.lower(subj)}"
            q = f"{word} {number_words(noun.split()[-1])['is']} the {noun}{whose}"
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
        bound = re.search(rf"\s({_BOUND_WORDS})\s", phrase)
        if bound:  # "held for up to 7 business days": "Up to seven business days."
            val = f"{bound.group(1)} {val}"
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
        label, subj = topic_label(c.subj)
        you = reg.to_customer and CUSTOMER_SUBJ.match(subj.strip())
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
            text = you_subject(text)
        return Draft(self._values(text, r.fact, rng, vt), "yn_qa")

    # .. values and polishing .......................................................................
    def _values(self, text: str, fact: Fact, rng: random.Random, vt, skip: str = "") -> str:
        for s in sorted(fact.slots, key=lambda s: -len(s.text)):
            if not s.text or s.name == skip or s.type in (SlotType.enum, SlotType.identifier):
                continue
            if vt and s.name in vt:
                text = replace_value(text, s.text, vt[s.name])
                continue
            if adjectival(text, s):
                continue
            text = replace_value(text, s.text, self._form(s, rng))
        return text

    def _polish(self, text: str, reg: Register) -> str:
        text = re.sub(r"\s+", " ", text).strip().rstrip(".")
        if reg.controlled:
            text = expand_contractions(text)
        elif reg.casual:
            text = contract(text)
        if not re.search(r"[.?!:]$", text):  # a lead-in ending in a colon keeps it: never ":."
            text += "."
        text = finish(text)
        return self.fix_names(text)

    def fix_names(self, text: str) -> str:
        """Brand and product names keep their capitalisation wherever a frame put them."""
        low = text.lower() if text.isascii() else None
        for name, name_low, rx in self._name_patterns():
            # ASCII name in ASCII text: the case-insensitive pattern can only match where the
            # lower-cased name occurs (a cheap test that skips most of the names)
            if low is not None and name_low is not None and name_low not in low:
                continue
            new = rx.sub(name, text)
            if new != text:
                text = new
                low = text.lower() if text.isascii() else None
        return text

    def _name_patterns(self) -> list[tuple[str, Optional[str], "re.Pattern[str]"]]:
        """(name, its lower case when ASCII, its pattern) of every proper name, longest first:
        compiled once for the names this realiser holds."""
        key = frozenset(self.proper)
        if getattr(self, "_patterns_key", None) != key:
            self._patterns = [(n, n.lower() if n.isascii() else None,
                               re.compile(rf"(?<![\w-]){re.escape(n)}(?![\w-])", re.I))
                              for n in sorted(self.proper_names, key=len, reverse=True)]
            self._patterns_key = key
        return self._patterns

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
        if len(parts) > 1 and all(p[:1].isupper() for p in parts) and parts[0].lower() not in PREFIXES:
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
            for rx, alts, pat in LEX_BY_WORD.get(w, ()):
                if pat in LAST_RESORT and not last_resort:
                    continue
                ok = [a for a in alts if not (reg.controlled and "'" in a)]
                if not ok:
                    continue
                for m in rx.finditer(seg):
                    at = s + m.start()
                    if in_quotes(text, at, s + m.end()):
                        continue  # someone's own words
                    if m.group(0)[:1].isupper() and at > 0 and not re.search(r"(^|[.!?:]\s+)$", text[:at]):
                        continue  # a capital mid-sentence is part of a name ("Merrowgate Online")
                    alt = ok[rng.randrange(len(ok))]
                    rep = keep_case(m.group(0), m.expand(alt) if "\\" in alt else alt)
                    if doubles(text[:s] + seg[:m.start()], rep, seg[m.end():] + text[e:]):
                        continue  # "a payment request for" read as the verb: "a payment ask for for"
                    cands.append(lambda a=m.start(), b=m.end(), rep=rep: text[:s] + seg[:a] + rep + seg[b:] + text[e:])
        quotes = [text[a:b] for a, b in quoted_spans(text)]
        for fn in STRUCTURAL:
            out = fn(text, s, e, rng, reg)
            if out and out != text and [out[a:b] for a, b in quoted_spans(out)] == quotes:
                cands.append(lambda out=out: out)
        rng.shuffle(cands)
        for make in cands:
            new = fix_agreement(tidy(make()))
            if len(NO_VERB.findall(new)) > len(NO_VERB.findall(text)):
                continue  # a noun or a modal where a verb goes: "do I must maintain", "do you fee"
            if MANGLED.search(new) and not MANGLED.search(text):  # a swap inside a set phrase: the
                new = re.sub(r"\b(?:no-cost|at no charge) of charge\b", "at no charge", new)  # whole phrase instead
                if MANGLED.search(new):
                    continue
            if new != text and (vt or carries(fact, new)):
                return new
        return text
