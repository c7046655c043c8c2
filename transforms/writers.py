"""Writers word the content of artifacts.

`BuiltinWriter` is offline and deterministic. Facts are worded by the realiser
(`transforms.realise`): a fact's parts (slots, conditions, clauses) written in one of several
frames, for a register (who speaks to whom, in what kind of record). A "canonical" rendition
stays close to the policy; a "voiced" one shares no run of six words with it (the realiser
guarantees it or raises). Customers ask about their own situation (their booking, their card,
their tier: `transforms.situations`), never in a policy's section titles. Greetings,
closings and small acknowledgements come from a grammar with names in it, so they do not
repeat across a domain.

`LLMWriter` (litellm, any provider) drafts statements when switched on; every draft must
pass the same checks as the built-in wording (values in an accepted form, the recovery rule,
no 6-word run of the statement when voiced, no aside or hedge in a controlled document, no
agreement error), else the built-in wording is used and the fallback counted. The built-in
writer is the only fake: tests and offline runs use it.

Hedge markers: a distractor or superseded value is always written inside a sentence that
carries one of `HEDGE_MARKERS` (a customer's belief, a draft, an old version), which is how
the audits tell "presented as current" from "mentioned as wrong/old".
"""
from __future__ import annotations

import os
import random
import re
from typing import TYPE_CHECKING, Optional

from facts.bounds import bound_words
from facts.errors import FactforgeError
from facts.llm import litellm_module
from facts.match import TextIndex, carries, key_shows_code
from facts.models import Fact, Slot, SlotType, replace_value, value_key
from facts.runs import shares_run, words
from facts.values import find_values, figure_slots, slot_matches

from .grammar import capitalise, expand, finish
from .phrasebook import (CORRECT_CUSTOMER, CORRECT_STAFF, HEDGED_CLAIMS, LEAD_CUSTOMER, LEAD_STAFF, PLAIN_CLAIMS,
                         RULES, SUPERSEDED, told_line)
from .reading import main_text, read
from .realise import Context, RealiseError, Realiser
from .registers import ASIDES, HEDGES, REGISTERS, Register
from .rewording import fix_agreement, named_in, plain_subject
from .voicing import VOICE_ATTEMPTS, VOICE_REGISTERS, voiceable
from .writer_api import Writer, holds_value, pick_slot, register_of

if TYPE_CHECKING:  # pragma: no cover
    from domains import DomainPack

    from .plan import Distractor, Route
    from .situations import Customer, Rec


HEDGE_MARKERS = ("i thought", "i was told", "i heard", "i read", "someone said", "my friend said",
                 "isn't it", "wasn't it", "proposal", "proposed", "draft", "superseded", "old rule",
                 "previously", "no longer", "used to be", "outdated", "rumour", "not correct",
                 "was changed", "obsolete", "replaced")

__all__ = ["HEDGE_MARKERS", "Writer", "BuiltinWriter", "LLMWriter", "make_writer",
           "Register", "REGISTERS"]
class BuiltinWriter(Writer):
    name = "builtin"

    def __init__(self, pack: "DomainPack"):
        super().__init__(pack)
        self.realiser = Realiser(self.names(), pack.brand.company, pack.brand.short_name)

    # .. facts .....................................................................................
    def statement(self, fact: Fact, rendition: str, rng: random.Random, register: Optional["Register | str"] = None,
                  context: Optional[Context] = None) -> str:
        reg = register_of(register)
        if rendition == "voiced":
            text = self.voiced(fact, rng, reg, context)
        else:
            text = self.realiser.render(fact, "canonical", rng, reg)
            if not reg.controlled and rng.random() < 0.35:
                text = self._lead(text, rng, reg, context)
        return text

    def voiced(self, fact: Fact, rng: random.Random, reg: Register, context: Optional[Context] = None,
               value_text: Optional[dict[str, str]] = None, single: bool = False) -> str:
        """A voiced rendition: tried with a few derived seeds before giving up with a clear
        error naming the fact and its source line."""
        last: Optional[Exception] = None
        seed = rng.random()
        for k in range(VOICE_ATTEMPTS):
            r = random.Random(f"{seed}:{k}")
            try:
                if single:
                    return self.realiser.single(fact, r, reg, value_text, context)
                return self.realiser.voiced(read(fact), r, reg, context, value_text)
            except RealiseError as e:
                last = e
        if not single and value_text is None:
            # the seeds `voiceable` proved, in this register then in the nearest checked one
            near = "manual" if reg.controlled else "team_chat" if reg.audience == "staff" else "chat"
            for reg2 in (reg, REGISTERS[near]):
                for k in range(VOICE_ATTEMPTS):
                    try:
                        return self.realiser.voiced(read(fact), random.Random(f"voiceable:{fact.id}:{k}"), reg2)
                    except RealiseError as e:
                        last = e
        if len(words(fact.statement)) < 6:
            # a statement of fewer than six words shares no 6-word run with itself: when no
            # re-wording stays recoverable ("Customer reports no service." -> "You report no
            # service." loses "customer"), the statement is its own voiced wording
            return fact.statement
        if not single and value_text is None and voiceable(fact):
            # `voiceable` proves its seeds with a realiser that knows no names; this writer's
            # realiser keeps the pack's names whole ("Monthly Maintenance Fee", "Minimum
            # balance" in a bank's 698 documents), which can leave no word to re-word inside
            # a 6-word run. The proven wording is then used, its names re-cased, so a fact the
            # planner voiced always gets a voiced wording (the planner never plans what the
            # writer cannot write).
            plain = Realiser(set())
            for reg2 in dict.fromkeys((reg, *(REGISTERS[n] for n in VOICE_REGISTERS))):
                for k in range(VOICE_ATTEMPTS):
                    try:
                        text = plain.voiced(read(fact), random.Random(f"voiceable:{fact.id}:{k}"), reg2)
                    except RealiseError as e:
                        last = e
                        continue
                    named = self.realiser.fix_names(text)
                    return named if carries(fact, named) else text
        raise FactforgeError(f"no voiced wording for fact {fact.id} ({fact.statement!r}) shares no 6-word run with "
                             f"the policy and stays recoverable: {last}", fact.source.file, fact.source.start_line)

    def voiceable(self, fact: Fact) -> bool:
        return voiceable(fact)

    def _lead(self, text: str, rng: random.Random, reg: Register, context: Optional[Context]) -> str:
        first = context.customer.first if context and context.customer else ""
        thing = _thing(context)
        pool = LEAD_CUSTOMER if reg.to_customer else LEAD_STAFF
        names = context.speaker_name.split()[0] if context and context.speaker_name else "all"
        lead = finish(expand(rng.choice(pool), rng, {"first": first or "there", "thing": thing, "names": names,
                                                      "question": f"{names}'s question" if names != "all" else
                                                      "the question",
                                                      "owner": self.person(rng, "manager"), "wday": rng.choice(
                                                          RULES["wday"])}, {}), capital=True)
        if "<" in lead or (not first and "there" in lead):
            return text
        return fix_agreement(lead.rstrip() + " " + self.realiser.lower(text))

    def question(self, fact: Fact, rng: random.Random, customer: Optional["Customer"] = None,
                 record: Optional["Rec"] = None, register: Optional["Register | str"] = None) -> str:
        """How a customer (or a colleague, with register staff) asks about a fact in their own
        words: their situation first ("I'm flying Main on reservation LKM4WZK and I'm a
        Navigator member"), then a plain question about the thing itself, never the policy's
        section title."""
        reg = register_of(register, "customer")
        staff = reg.audience == "staff"
        r = read(fact)
        q = None if r.cell else self.realiser.ask(fact, rng, first_person=not staff)
        if q is not None and shares_run(q, fact.statement):
            q = self.realiser.unrun(fact, q, rng)
        if q is None:
            about = self._about(fact, r)
            if about:
                pool = (["what's {about}?", "can someone confirm {about}?", "what do we tell customers about "
                         "{about}?", "which figure is right for {about}?"] if staff else
                        ["could you tell me about {about}?", "what's {about}?", "can you check {about} for me?",
                         "how does {about} work for me?"])
                q = rng.choice(pool).format(about=about)
            elif self._subject(fact, r):
                subj = self._subject(fact, r)
                pool = (["what's the rule on {s}?", "can someone confirm how {s} works?", "what do we tell customers "
                         "about {s}?"] if staff else
                        ["could you tell me about {s}?", "how do {s} work?" if _plural_np(subj) else
                         "how does {s} work?", "what should I know about {s}?", "what is the deal with {s}?"])
                q = rng.choice(pool).format(s=subj)
            else:
                q = rng.choice(["what do we tell the customer here?", "which rule applies here?"] if staff else
                               ["what happens in my case?", "what are my options here?", "how does that work for me?"])
        elif rng.random() < 0.5:
            q = q[:1].lower() + q[1:] if not q.startswith("I ") else q
            q = rng.choice(["quick question: {q}", "I wanted to ask: {q}", "{q}"]).format(q=q)
        if shares_run(q, fact.statement):
            q = self.realiser.unrun(fact, q, rng) or rng.choice(["what applies in my case?", "how does that work?"])
        sit = "" if staff else self._situation(fact, rng, customer, record)
        text = q
        if sit:
            q2 = q[:1].lower() + q[1:] if not re.match(r"^(I|I'm|I've)\b", q) else q
            text = f"{sit} — {q2}" if rng.random() < 0.5 else f"{sit}, so {q2}"
        return finish(fix_agreement(text))

    def _about(self, fact: Fact, r) -> str:
        """A noun phrase for what the fact is about, from its own words (a cell's measure and
        row, or the statement's head noun phrase)."""
        if r.cell:
            what, whom = self.realiser.cell_parts(r)
            return f"the {what} for {whom}"
        lab = self.label(fact)
        if lab and holds_value(lab, self.pack.info.currency):
            lab = ""  # "what's the lb costs an extra $100?": a question never carries its own answer
        if lab and len(lab.split()) <= 7 and lab.split()[0].lower() not in ("of", "for", "to", "in", "on", "at", "by",
                                                                           "with", "from", "per", "and", "or", "before",
                                                                           "after", "within", "under", "over", "than",
                                                                           "up", "minus"):
            lab = self.lower_first(lab)
            return lab if re.match(r"^(the|a|an|your|my|[A-Z])", lab) else f"the {lab}"
        return ""

    def _subject(self, fact: Fact, r) -> str:
        """The statement's subject as a customer names the thing they ask about ("TripGuard",
        "refunds to a credit card"); "" when it holds a figure, is a person or is long."""

        subj = plain_subject(r.main)
        if not subj or \
                holds_value(subj, self.pack.info.currency) or \
                re.match(r"^(?:the|a|an|each|every|any)?\s*(?:customer|passenger|agent|member|staff|you|we)s?\b", subj, re.I):
            return ""
        return self.realiser.lower(subj)

    def _situation(self, fact: Fact, rng: random.Random, customer: Optional["Customer"], record: Optional["Rec"]) -> str:
        if customer is None:
            return ""
        bits = []
        conds = [c.value for c in fact.conditions if c.attribute != "attribute"]
        if customer.tier and (customer.tier in conds or rng.random() < 0.3):
            bits.append(rng.choice([f"I'm a {customer.tier} member", f"I have {customer.tier} status",
                                    f"I'm on {customer.tier}"]))
        rec = record
        if rec is not None:
            what = f"{rec.kind} {rec.id}" if rec.id and not rec.internal else rec.ref()
            if rec.route:
                bits.append(rng.choice([f"I'm booked on {what} from {rec.route.replace(' to ', ' to ')}",
                                        f"I've got {what}, {rec.route}"]))
            elif rec.label and rec.label.lower() != rec.kind:
                bits.append(rng.choice([f"I have the {rec.label} ({what})", f"about my {rec.label}, {what}"]))
            else:
                mine = re.sub(r"^the ", "", what)  # "my statement from March 31", not "my the statement"
                bits.append(rng.choice([f"about my {mine}", f"I'm looking at my {mine}"]))
        return finish(", and ".join(bits)) if bits else ""

    def distractor(self, fact: Fact, d: "Distractor", rng: random.Random, role: str = "customer",
                   register: Optional["Register | str"] = None, context: Optional[Context] = None) -> str:
        """A wrong or old value inside a hedged sentence, the claim worded by the realiser
        (never a copy of the policy statement) with the wrong value in it."""
        reg = register_of(register, role)
        slot = pick_slot(fact, d.slot)
        vt = {slot.name: d.text} if slot is not None else None
        try:
            claim = self.voiced(fact, rng, reg, context, value_text=vt, single=True)
        except FactforgeError:
            about = self._about(fact, read(fact)) or "it"
            claim = self.realiser.unrun(fact, f"{about} is {d.text}", rng) or f"it was {d.text}"
        if not _states_value(claim, d.text, slot, self.pack.info.currency):
            claim = replace_value(fact.statement, slot.text, d.text) if slot is not None else claim
            claim = self._unrun(fact, claim, rng, reg)
        claim = self.realiser.lower(claim).rstrip(".?! ")
        thing = _thing(context)
        if d.resolution == "correction":
            # said plainly by someone who believes it; the current value follows in the same file
            pool = PLAIN_CLAIMS["colleague" if role in ("colleague", "manager") else "customer"]
            text = expand(rng.choice(pool).replace("{claim}", "\x00"), rng, {"thing": thing}, {}).replace("\x00", claim)
            text = finish(text)
            return text if text.endswith(("?", "!")) else text + "."
        if d.role == "superseded":
            t = rng.choice(SUPERSEDED)
            return finish(t.format(date=d.date or "earlier", claim=claim)) + ("" if t.endswith(")") else ".")
        pool = HEDGED_CLAIMS["colleague" if role in ("colleague", "manager") else "customer"]
        t = rng.choice(pool)
        text = expand(t.replace("{claim}", "\x00"), rng, {"thing": thing}, {}).replace("\x00", claim)
        text = finish(text)
        return text if text.endswith("?") else text + "."

    def correction(self, fact: Fact, rng: random.Random, rendition: str = "canonical",
                   register: Optional["Register | str"] = None, context: Optional[Context] = None) -> str:
        """The current value, stated after a distractor or superseded mention."""
        reg = register_of(register)
        body = self.statement(fact, rendition, rng, reg, context) if rendition == "voiced" else \
            self.realiser.render(fact, "canonical", rng, reg)
        pool = CORRECT_CUSTOMER if reg.to_customer else CORRECT_STAFF
        first = context.customer.first if context and context.customer else ""
        names = context.speaker_name.split()[0] if context and context.speaker_name else "all"
        lead = finish(expand(rng.choice(pool), rng, {"first": first or "there", "names": names,
                                                      "question": f"{names}'s question" if names != "all" else
                                                      "the question",
                                                      "owner": self.person(rng, "manager"),
                                                      "wday": rng.choice(RULES["wday"])}, {}))
        if reg.controlled:
            return body
        return fix_agreement(lead + (" " if not lead.endswith(" ") else "") + self.lower_first(body)).replace("  ", " ")

    # .. roles beyond the carrier (transforms.plan_roles) ...........................................
    def partial(self, fact: Fact, rng: random.Random, register: Optional["Register | str"] = None,
                context: Optional[Context] = None) -> str:
        """The value without its condition ("the monthly fee's $6", "it's 24 hours now"): what
        people say when the context is obvious to them. Not a rendition of the fact (its
        condition is missing), so it is never checked against the recovery rule."""
        reg = register_of(register)
        r = read(fact)
        slot = next((s for s in fact.slots if s.type not in (SlotType.enum, SlotType.identifier)), None)
        pre, post = bound_words(fact, slot) if slot is not None else ("", "")
        value = f"{pre}{self.value_text(slot, rng)}{post}" if slot is not None else ""
        if r.cell:
            what, _ = self.realiser.cell_parts(r)
            t = rng.choice(["the {what} is {val}", "it's {val} for the {what}", "{val} is the {what} now",
                            "the {what}? {val}"])
            return finish(fix_agreement(t.format(what=what, val=self.realiser.cell_value(r, rng, None))))
        body = main_text(fact)
        if body:
            derived = fact.model_copy(update={"statement": body[:1].upper() + body[1:] + ".", "conditions": [],
                                              "slots": [s for s in fact.slots if s.text and s.text in body]})
            if derived.slots:
                try:
                    return self.voiced(derived, rng, reg, context, single=True)
                except FactforgeError:
                    pass
            return self._unrun(fact, finish(fix_agreement(self.realiser.lower(body))) + ".", rng, reg)
        about = self._about(fact, r) or "that"
        t = rng.choice(["{about} is {val}, as far as I remember the notes", "{val} for {about}, usually"] +
                       ([] if pre else ["it comes to {val} for {about}"]))  # a cap is no sum a charge comes to
        text = finish(fix_agreement(t.format(about=about, val=value))) + "."
        if not shares_run(text, fact.statement):
            return text
        # a label of six words or more copies the policy ("the down payment on a financed
        # device"): broken where the realiser can, else said by its head ("the down payment")
        head = re.sub(r"\s+(?:on|of|for|in|at|per|with|from|to|by)\s.*$", "", about)
        return self.realiser.unrun(fact, text, rng, reg) or \
            finish(fix_agreement(t.format(about=head, val=value))) + "."

    def case(self, fact: Fact, rng: random.Random, register: Optional["Register | str"] = None,
             context: Optional[Context] = None, record: str = "") -> str:
        """The rule applied to a customer's record, as a case note or an agent's reply: the
        record, its attributes (the fact's conditions) and the rule as it was applied, so the
        rule can be induced from cases."""
        reg = register_of(register)
        conds = [c.value for c in fact.conditions if c.attribute != "attribute"]
        rec = record or (context.record.ref() if context and context.record else "")
        cust = context.customer.first if context and context.customer else ""
        rendition = "voiced" if voiceable(fact) else "canonical"
        try:
            body = self.statement(fact, rendition, rng, reg, context)
        except FactforgeError:
            body = self.realiser.render(fact, "canonical", rng, reg)
        where = ", ".join([x for x in [rec, *conds] if x])
        if reg.to_customer:
            t = rng.choice(["I've looked at {where}: {body}", "For {where}, {body}", "Checked {where} for you. {Body}"])
        else:
            t = rng.choice(["{Cust} ({where}): {body}", "Applied for {cust_l} on {where}: {body}",
                            "Explained to {cust_l} ({where}): {body}", "{Where}: {body} {told}"])
        return fix_agreement(finish(t.format(where=where or "the record", Where=(where or "Record")[:1].upper()
                                             + (where or "Record")[1:], body=self.lower_first(body), Body=body,
                                             Cust=cust or "Customer", cust_l=cust or "the customer",
                                             told=told_line(cust, rng))))

    def hop_key(self, fact: Fact, route: "Route", rng: random.Random, register: Optional["Register | str"] = None,
                context: Optional[Context] = None) -> str:
        """The fact with its value given by reference to a schedule code (the value is in the
        schedule file, which names nothing of the fact): "The same-day change fee is the amount
        under code SC-104 of the Schedule of charges and limits." A catalog row names its code
        once: "Premier Checking is priced under code SC-112 of the ..."."""
        reg = register_of(register)
        r = read(fact)

        def shows(text: str) -> bool:  # the audit's key hop, on this sentence alone
            return key_shows_code(fact, route.code, route.label, TextIndex(text))

        if r.cell:
            row = r.cell["row"]
            t = rng.choice(["{row} is priced under code {code} of the {sched}.",
                            "For {row}, use the lines under code {code} in the {sched}.",
                            "{row}: see code {code} in the {sched} for its figures."])
            text = finish(t.format(row=row, code=route.code, sched=route.schedule))
            if shows(text):
                return text
            # a row whose name is not what the fact is about ("Reforestation — How your
            # account contributes: 2 trees are planted ..."): the whole statement, its figure
            # by reference
        slot = next((s for s in fact.slots if s.type not in (SlotType.enum, SlotType.identifier)), None)
        noun = {"money": "amount", "duration": "period", "percent": "rate", "count": "number"}.get(
            slot.type.value if slot else "", "figure")
        ref = rng.choice([f"the {noun} listed under code {route.code} in the {route.schedule}",
                          f"the {noun} set out under code {route.code} of the {route.schedule}"])
        vt = {slot.name: ref} if slot is not None else None
        if slot is not None:
            for s in fact.slots[1:]:
                if s.type not in (SlotType.enum, SlotType.identifier) and s is not slot:
                    vt[s.name] = f"the figure under code {route.code}"
        text = ""
        try:
            text = self.voiced(fact, rng, reg, context, value_text=vt, single=True)
        except FactforgeError:
            pass
        cur = self.pack.info.currency
        if not shows(text) or (slot is not None and _states_value(text, slot.text, slot, cur)):
            # a re-wording that lost the fact's own terms ("hold ... eligible card" said as
            # "have ... entitled card") does not lead a reader from the code to the fact
            text = self.realiser.render(fact, "canonical", rng, reg, value_text=vt)
        if not shows(text) or (slot is not None and _states_value(text, slot.text, slot, cur)):
            text = replace_value(fact.statement, slot.text, ref) if slot is not None else fact.statement
        # the reference brings its own article: "before the $50" becomes "before the amount
        # set out ...", never "before the the amount" or "your the number"
        return re.sub(r"\b(?:the|a|an|your|my|our|their) (the (?:amount|period|rate|number|figure) "
                      r"(?:(?:listed|set out) )?under code)", r"\1", text, flags=re.I)

    def _unrun(self, fact: Fact, text: str, rng: random.Random, reg: Register) -> str:
        """`text` with no run of six words of the fact's statement where the realiser can break
        them (a mention that is not a rendition must not copy the policy either)."""
        if not shares_run(text, fact.statement):
            return text
        return self.realiser.unrun(fact, text, rng, reg) or text

    def short_answer(self, fact: Fact, rng: random.Random, register: Optional["Register | str"] = None,
                     context: Optional[Context] = None, skip: frozenset = frozenset(), named: str = "") -> str:
        """The answer to a question that already named the thing: the value (every numeric
        value of the fact) with the case it applies to, and nothing else ("It's $75 for Main
        with Voyager status."). Only recoverable together with the question before it.
        `named`: the question; a case it already named is not said again ("It's $75.")."""
        reg = register_of(register)
        said = [s for s in fact.slots if s.type not in (SlotType.enum, SlotType.identifier) and s.name not in skip]
        # each value with its bound ("up to $12,000", "at least $25", "$35 per passenger"):
        # a cap said alone as "It comes to $12,000" states another rule
        vals = [f"{pre}{self.value_text(s, rng)}{post}" for s in said for pre, post in [bound_words(fact, s)]]
        if not vals:
            return ""
        bounded = any(bound_words(fact, s)[0] for s in said)
        v = vals[0] if len(vals) == 1 else ", ".join(vals[:-1]) + " and " + vals[-1]
        asked = named.lower()
        conds = [c.value for c in fact.conditions if c.attribute != "attribute" and
                 not (asked and re.search(r"(?<![a-z0-9])" + re.escape(c.value.lower()) + r"(?![a-z0-9])", asked))]
        for_c = f" for {' with '.join(conds[:2])}" if conds else ""
        if reg.to_customer:
            pool = ["It's {v}{for_c}.", "That's {v}{for_c}.", "{V}{for_c}, yes.", "{In_your_case} it's {v}.",
                    "{V}{for_c} — I've checked.", "It comes to {v}{for_c}."]
        elif reg.controlled:  # a help page or a manual answers plainly
            pool = ["{V}{for_c}.", "It is {v}{for_c}.", "The figure is {v}{for_c}.", "{V}{for_c} is the current figure."]
        else:
            pool = ["{V}{for_c}.", "It's {v}{for_c} — confirmed.", "{V}{for_c}, that's the current figure.",
                    "{V}{for_c}, checked {when}."]
        if bounded:  # a cap or a floor is no sum a charge "comes to", nor "the figure"
            pool = [p for p in pool if "comes to" not in p and "figure" not in p] or ["{V}{for_c}."]
        t = rng.choice(pool)
        when = rng.choice(["this morning", "today", "against the schedule"]) if "{when}" in t else ""
        first = context.customer.first if context and context.customer else ""
        yours = f"{first}, in your case" if first else "in your case"
        return fix_agreement(finish(t.format(v=v, V=v[:1].upper() + v[1:], for_c=for_c, when=when, In_your_case=yours)))

    def anaphoric(self, fact: Fact, rng: random.Random, question: str, register: Optional["Register | str"] = None,
                  context: Optional[Context] = None, gap: int = 120) -> str:
        """A voiced answer to `question` when the question named the fact's subject: the
        subject said again as "it" or "they" ("Could you tell me about TripGuard?" - "It costs
        thirty-five dollars per passenger."), recoverable with the question before it (`gap`
        characters between them); "" when the question did not name it or no wording holds."""

        r = read(fact)
        if r.cell or not plain_subject(r.main) or not named_in(r.main.subj, question):
            return ""
        reg = register_of(register)
        seed = rng.random()
        self.realiser.given = question
        try:
            for k in range(VOICE_ATTEMPTS):
                try:
                    return self.realiser.voiced(r, random.Random(f"{seed}:{k}"), reg, context,
                                                before=f"{question}\n{'.' * gap}\n")
                except RealiseError:
                    continue
        finally:
            self.realiser.given = ""
        return ""

    def cell_reply(self, fact: Fact, rng: random.Random, register: Optional["Register | str"] = None) -> str:
        """A catalog cell said as a reply to someone who asked about it (a customer's question,
        a colleague's thread): the case and the figure, the column's measure left to the
        question ("Pinnacle and Lite: two bags.", "For Main with Voyager, it's $75."), as
        people answer; "" for a fact that is not a cell. The caller checks it on its own."""
        r = read(fact)
        if not r.cell:
            return ""
        _what, whom = self.realiser.cell_parts(r, rng)
        val = self.realiser.cell_value(r, rng, None)
        slot = next((s for s in fact.slots if s.type not in (SlotType.enum, SlotType.identifier)), None)
        bare = re.match(r"^(\S+)\s+[a-z]+$", val)
        if slot is not None and slot.type == SlotType.count and not slot.unit and bare:
            val = bare.group(1)  # "how many bags?" - "two for Pinnacle in Lite": the count, its noun asked already
        reg = register_of(register)
        pool = ["{Whom}: {val}.", "For {whom}, it's {val}.", "{Val} for {whom}.", "{Whom} — {val}.",
                "With {whom} it's {val}.", "That's {val} for {whom}."]
        if reg.controlled:
            pool = ["{Whom}: {val}.", "For {whom}: {val}.", "{Val} for {whom}."]
        t = rng.choice(pool)
        return fix_agreement(t.format(whom=whom, Whom=capitalise(whom), val=val, Val=capitalise(val)))

    def stale(self, fact: Fact, d: "Distractor", rng: random.Random, register: Optional["Register | str"] = None,
              context: Optional[Context] = None) -> str:
        """A wrong or old value stated plainly, as its author meant it at the time (an older
        version of a document, last season's rule in an old thread, a proposal, a colleague's
        confident mistake, a conflicting record): nothing in the sentence says it is wrong; the
        file's date, version or author does."""
        reg = register_of(register)
        slot = pick_slot(fact, d.slot)
        vt = {slot.name: d.text} if slot is not None else None
        claim = ""
        if d.rendition == "canonical":  # the policy's words, as the records quote them, with the old figure
            claim = self.realiser.render(fact, "canonical", rng, reg, value_text=vt)
        else:
            try:
                claim = self.voiced(fact, rng, reg, context, value_text=vt, single=True)
            except FactforgeError:
                pass
        if d.rendition == "canonical":
            if not _states_value(claim, d.text, slot, self.pack.info.currency) and slot is not None:
                claim = replace_value(fact.statement, slot.text, d.text)
        elif not _states_value(claim, d.text, slot, self.pack.info.currency):
            claim = self._unrun(fact, self.realiser.render(fact, "canonical", rng, reg, value_text=vt), rng, reg)
        if d.rendition != "canonical" and not _states_value(claim, d.text, slot, self.pack.info.currency):
            claim = self._unrun(fact, replace_value(fact.statement, slot.text, d.text) if slot is not None
                                else fact.statement, rng, reg)
        claim = count_agreement(claim, fact, slot, d.text)
        if d.role == "proposal":
            lead = rng.choice(["Suggestion for the next review: ", "What I'd put forward: ", "Option on the table: ",
                               "For discussion: "])
            return fix_agreement(lead + self.lower_first(claim))
        return claim


_FUNCTION = {"of", "worth", "to", "up", "at", "least", "most", "is", "are", "be", "by", "a", "an", "the", "for", "gets",
             "get", "receive", "receives", "pays", "pay", "costs", "cost", "within", "than", "more", "less", "no",
             "only", "after", "before", "over", "under", "with", "and", "or", "per", "each", "every", "in", "on"}


def _plural_np(np: str) -> bool:
    """Whether a noun phrase's head is plural ("refunds to a credit card": yes)."""
    head = re.split(r"\s(?:to|of|for|with|on|in|under|from|after|before|at)\s", np)[0].split()[-1]
    return head.endswith("s") and not head.endswith("ss")


_NOT_NOUN = {"and", "or", "of", "to", "in", "per", "for", "with", "from", "on", "at", "the", "a", "an", "that",
             "which", "is", "are", "may", "can", "must", "each", "every", "total", "more", "less", "than"}


def count_agreement(text: str, fact: Fact, slot: Optional[Slot], figure: str) -> str:
    """`text` with the noun a count's other `figure` counts agreeing with it: the statement's
    "1 bag" said with 2 is "2 bags", its "0 bags" said with 1 is "1 bag", "1 credit card" is
    "2 credit cards" (the head noun is the last of up to three words after the figure,
    before a function word, and must agree with the statement's own figure; its modifiers
    stay as they are)."""
    if slot is None or slot.type != SlotType.count or slot.unit or not re.fullmatch(r"[\d,]+", figure):
        return text
    m = re.search(r"(?<![\w$])" + re.escape(slot.text) + r"((?: [a-z][a-z-]*){1,3})", fact.statement)
    if not m:
        return text
    words = []
    for w in m.group(1).split():
        if w in _NOT_NOUN:
            break
        words.append(w)
    if not words:
        return text
    *mods, noun = words
    if (slot.value == 1) == (noun.endswith("s") and not noun.endswith("ss")):
        return text  # not a counted noun in the number the statement's figure asks ("14 years old")
    one = noun[:-2] if noun.endswith(("ches", "shes", "xes", "sses")) else \
        noun[:-1] if noun.endswith("s") and not noun.endswith("ss") else noun
    many = one + ("es" if one.endswith(("s", "x", "ch", "sh")) else "s")
    want = one if figure.replace(",", "") == "1" else many
    lead = "".join(" " + re.escape(x) for x in mods)
    return re.sub(r"(?<![\w$])(" + re.escape(figure) + lead + rf") (?:{re.escape(one)}|{re.escape(many)})\b",
                  lambda g: f"{g.group(1)} {want}", text)


def _states_value(text: str, value: str, slot: Optional[Slot], currency: str = "USD") -> bool:
    """Whether `text` shows the value `value` (any equivalent surface form)."""
    if not text or slot is None:
        return False

    want = {p.key() for p in figure_slots(value, currency=currency)}
    if not want:
        return value.lower() in text.lower()
    return any(value_key(t, v, vmax, unit) in want for t, v, vmax, unit, _s, _e in find_values(text, currency=currency))


def _thing(context: Optional[Context]) -> str:
    if context and context.record is not None:
        rec = context.record
        return f"{rec.kind} {rec.id}" if rec.id and not rec.internal else rec.ref()
    return "my booking" if not context else "my account"


class LLMWriter(BuiltinWriter):
    """Drafts statements with an LLM through litellm (lazily imported). Each draft must pass
    the same checks as the built-in wording (see `valid`), else the built-in wording is used
    and counted in `fallbacks`."""

    name = "llm"

    def __init__(self, pack: "DomainPack", model: Optional[str] = None, mock_response: Optional[str] = None,
                 temperature: float = 0.0):
        super().__init__(pack)
        self.model = model or os.environ.get("FACTFORGE_LLM_MODEL", "gpt-4o-mini")
        self.mock_response = mock_response
        self.temperature = temperature
        self.fallbacks = 0
        self.calls = 0

    def identity(self) -> dict:
        return {**super().identity(), "model": self.model, "temperature": self.temperature,
                "mock_response": self.mock_response}

    def _complete(self, prompt: str, seed: int) -> str:
        litellm = litellm_module()

        kwargs = dict(model=self.model, messages=[{"role": "user", "content": prompt}],
                      temperature=self.temperature, seed=seed)
        if self.mock_response is not None:
            kwargs["mock_response"] = self.mock_response
        self.calls += 1
        resp = litellm.completion(**kwargs)
        return (resp.choices[0].message.content or "").strip()

    def statement(self, fact: Fact, rendition: str, rng: random.Random, register: Optional["Register | str"] = None,
                  context: Optional[Context] = None) -> str:
        reg = register_of(register)
        style = ("Restate it faithfully, close to the original wording." if rendition == "canonical"
                 else "Paraphrase it in your own words; do not reuse any run of six words from the original.")
        tone = ("a formal controlled document: third person, no asides, no hedging, no contractions"
                if reg.controlled else f"a {reg.speaker} writing to {reg.audience} in a {reg.genre}")
        prompt = (f"You write records for {self.pack.brand.company} ({self.pack.info.business}). Write one sentence "
                  f"stating this policy fact, as {tone}. {style} Keep every number and amount.\nFact: {fact.statement}")
        draft = self._complete(prompt, rng.randrange(1 << 30))
        if self.valid(fact, draft, rendition, reg):
            return draft
        self.fallbacks += 1
        return super().statement(fact, rendition, rng, reg, context)

    @staticmethod
    def valid(fact: Fact, text: str, rendition: str, register: Optional[Register] = None) -> bool:
        """The checks every rendition passes: values in an accepted form and the recovery rule;
        voiced: no 6-word run of the statement; in a controlled document no aside and no
        hedge; no agreement error a frame would not make."""

        if not text or len(text) > 600:
            return False
        if any(slot_matches(s, text) is None for s in fact.slots if s.type not in (SlotType.enum,
                                                                                  SlotType.identifier)):
            return False
        if not carries(fact, text):
            return False
        if rendition == "voiced" and shares_run(text, fact.statement):
            return False
        low = " " + " ".join(re.sub(r"[^\w'$%.]+|\.(?!\d)", " ", text.lower().replace("\u2019", "'")).split()) + " "
        if register is not None and register.controlled and any(f" {p} " in low for p in ASIDES + HEDGES):
            return False
        return fix_agreement(text) == text


def make_writer(pack: "DomainPack", name: str = "builtin", **kw) -> Writer:
    if name == "builtin":
        return BuiltinWriter(pack)
    if name == "llm":
        return LLMWriter(pack, **kw)
    raise FactforgeError(f"unknown writer {name!r}; available: builtin, llm")
