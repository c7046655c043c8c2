"""Routine business traffic that carries no policy fact: the haystack.

Most of what a business writes is not about policy: a customer wants a receipt, a colleague
needs a shift covered, the CRM is slow. This module generates that traffic from the seed
database (real customers, their bookings, orders, accounts, cards, bills; see
`transforms.situations`) and a grammar (`transforms.grammar`) with enough independent choice
points that, across a domain, sentences rarely repeat.

API (every function takes the renderer's `RenderContext`, an rng the caller seeded, and
`avoid`: value surface forms ("$50", "24 hours") that must not appear, i.e. the wrong values
the same file mentions elsewhere, so a routine amount never reads as an unhedged distractor):

- `customer_exchange(ctx, rng, channel=...)` -> `Exchange`: a support conversation with one
  customer about one of their records; channel "chat", "email" (turns are whole messages
  with greeting and sign-off), "ticket" (no greetings or chat rituals) or "call" (spoken);
- `internal_thread(ctx, rng, channel=...)` -> `Thread`: staff traffic (case hand-offs,
  shift cover, tooling trouble, meetings moving, training, office logistics, metrics); channel
  "email" or "team_chat";
- `meeting_item(ctx, rng, people)` -> list of `Turn`: one agenda item of a team meeting,
  spoken;
- `ticket(ctx, rng)` -> `Ticket`: a helpdesk/issue-tracker record with comments;
- `case_note(ctx, rng)` -> str: one line of a case log; `case_entry` -> `CaseNote`: the
  whole row (category, status, note, customer, record).

Nothing here states a rule, a fee or a time limit: amounts, dates and statuses come from the
database records being discussed (which obey the policy), so the haystack never contradicts
a fact. Each thread follows one storyline (the printer is fixed or it is not), so replies
never contradict each other.

Distinct-sentence measure: a quoted copy of an earlier message (email history, a forwarded
message) is not a new sentence; `audits.language` counts a message once, where it was
written, and drops quoted lines.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable, Optional

from facts.values import find_values

from . import records as RC
from .grammar import expand, finish
from .situations import Customer, Rec, money, short_day, view

if TYPE_CHECKING:  # pragma: no cover
    from .base import RenderContext


@dataclass
class Turn:
    who: str
    role: str      # "customer", "agent", "colleague", "manager", "system"
    text: str      # one or more sentences; "\n\n" separates paragraphs (email)


@dataclass
class Exchange:
    customer: Customer
    agent: str
    record: Optional[Rec]
    subject: str
    scenario: str
    turns: list[Turn] = field(default_factory=list)
    opening: int = 1  # turns before the business (the customer's opening, the agent's greeting)
    closing: int = 0  # turns of the closing ritual ("anything else?", "that's all", "take care")

    @property
    def business(self) -> list[Turn]:
        """The exchange without its greetings and goodbyes: what a longer chat can carry in its
        middle (a greeting there, or a goodbye before more questions, reads out of order)."""
        return self.turns[self.opening:len(self.turns) - self.closing]


@dataclass
class Thread:
    subject: str
    scenario: str
    turns: list[Turn] = field(default_factory=list)


@dataclass
class Ticket:
    summary: str
    type: str
    status: str
    reporter: str
    assignee: str
    description: str
    scenario: str
    comments: list[Turn] = field(default_factory=list)


# --- shared grammar ---------------------------------------------------------------------------
# Every sentence carries something grounded (a name, a record, a date) and several choice
# points, so sentences stay distinct across thousands of conversations.
RULES: dict[str, list[str]] = {
    "ago": ["yesterday", "this morning", "last night", "on <wday>", "earlier today", "a couple of days ago",
            "last week", "over the weekend", "on <rdate_or_wday>"],
    "wday": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"],
    "since_ago": ["since yesterday", "since this morning", "since last night", "since <wday>", "since the weekend",
                  "for a couple of days", "since last week", "since <rdate_or_wday>"],
    "soon": ["in a few minutes", "shortly", "within the hour", "later today", "by the end of the day"],
    "pleased": ["great", "perfect", "brilliant", "lovely", "fantastic", "excellent", "super"],
    # customer
    "c_open": ["{Hi|Hello|Hey|Hi there|Hello there|Morning|Good {morning|afternoon|evening}}{, it's <cfirst>|, <cfirst> "
               "here|, this is <cname>|}{ —|,} "],
    "c_close": ["{That's {everything|all|it}|That's all I needed|All sorted|Perfect, that's it|Nothing else}{ for "
                "{now|today}| on <ref_short>|}{, thanks {so much|a lot|again|}{ <afirst>|}|, thank you{ <afirst>|}|"
                "} {— have a {good|great|lovely|nice} {day|evening|weekend|week|one}{, <afirst>|}|— bye for now, "
                "<afirst>|and take care, <afirst>}{!|.}",
                "{Thanks {so much|a lot|again|for {your help|sorting that|checking}}|Thank you{ so much|}|Cheers|Much "
                "appreciated}{, <afirst>|}{, that's {everything|all I needed|me sorted}{ for <ref_short>|}|, all good "
                "now with <ref_short>} {— have a {good|great|lovely|nice} {day|evening|weekend|week}|— bye|and take "
                "care|}{!|.}"],
    "c_thanks": ["{Thanks|Thank you|Cheers|Much appreciated|Appreciate it}{ {so much|a lot|very much}|}{, <afirst>|}"
                 "{ — |, }{that's {exactly what I needed|a {big|real} help|sorted then}{ for <ref_short>|}|{<pleased>|good}, "
                 "{that was quick|that's what I was hoping} with <ref_short>|I'll keep an eye out for {it|<email>}{ "
                 "<soon>|}|that's {a relief|one less thing to worry about}{ before <wday>| this week|}}{!|.}"],
    "a_greet": ["{Hi|Hello|Good {morning|afternoon}|Hi there} <cfirst>{, {thanks for {reaching out|getting in touch|"
                "contacting <company>|your message|waiting}|you're through to <afirst>{ at <brand>|}|this is <afirst>"
                "{ from <brand>|}|<afirst> here{ from the <brand> team|}}|}{!|.}",
                "{Welcome to|Thanks for contacting} <company>{ support|}, <cfirst>{ — {my name is|I'm} <afirst>|, "
                "<afirst> here}{!|.}"],
    "a_look": ["{Let me {pull up|bring up|open|look up|check}|I'll {pull up|check|open}|One {moment|second} while I "
               "{pull up|check|open}} <ref_short>{ for you|}{, <cfirst>|}{.|...}",
               "{Checking|Looking at|Opening} <ref_short> {now|for you|on my side}{, <cfirst>|}{, {bear with me|won't "
               "be a moment|one sec}|}{.|...}"],
    "a_more": ["{Is there|Was there} anything else {I can {help with|do for you|check}|on <ref_short>|on your account}"
               "{ {today|this {morning|afternoon}|while I have you}|}, <cfirst>?",
               "{Anything|Can I help with anything|Can I do anything} else{ for you|}{ today| while you're here| on "
               "<ref_short>|}, <cfirst>?", "{Is that everything|Does that cover it} for <ref_short>, <cfirst>?"],
    "a_bye": ["{You're welcome|My pleasure|Happy to help|Glad {I could help|we got that sorted|that's sorted}|No "
              "problem at all}, <cfirst>{ — |, }{have a {great|good|lovely|nice} {day|evening|weekend|rest of your "
              "day}|enjoy {the rest of your day|your week|your weekend}|take care|all the best}{ and thanks for {your "
              "patience|choosing <brand>|bearing with me|getting in touch}|}{!|.}"],
    "verify_ask": ["{Before I {go on|look into it|make changes|open <ref_short>}|First|To {start|get going}|So I can "
                   "{help|look at this|see <ref_short>}}, {could|can} you {confirm|give me} the <contact_kind> on the "
                   "{account|profile}?",
                   "{Could|Can} I {get|have} the <contact_kind> {you used|registered} with us"
                   "{, please|, just to {verify|confirm it's you|find <ref_short>}|}?"],
    "verify_give": ["{It's|Sure, it's|Yes, it's|That would be|Sure thing:|Of course, it's} <contact>{ — {the one on "
                    "file|same as always|that's the one I {use|check}}|}{, and {it's|I'm asking about} <ref_short>|, "
                    "the account's in my name, <cname>|, <afirst>}{.|!}",
                    "<contact>{ — that's the one on file| is the one I use|, same as {always|before}}{, <afirst>|, "
                    "for <ref_short>|}{.|!}"],
    # staff
    "s_thanks": ["{Thanks|Thank you|Cheers|Many thanks|Thanks a lot|Much appreciated|Nice one}, <to>{ — |, }"
                 "{{that|this} helps {a lot|loads|with <wday>}|{I owe you|owe you} {one|a coffee|a pastry}|{really|much} "
                 "appreciated {on <wday>|this week|}|you're a star|lifesaver|you've saved my <wday>}{!|.}"],
}

WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
_NEW_DOMAINS = ["fastmail.example", "inbox.example", "post.example", "mailbox.example", "webmail.example"]
_STREETS = ["Birch Lane", "Harbor View Rd", "Juniper Court", "Mill Street", "Orchard Way", "Ridge Avenue",
            "Sycamore Drive", "Canal Street", "Aspen Terrace", "Lakeshore Blvd", "Quarry Road", "Willow Bend"]
RELATIONS = ["wife", "husband", "partner", "daughter", "son", "mum", "dad", "colleague", "flatmate", "sister", "brother"]


def value_keys(text: str, currency: str = "USD") -> set[tuple]:
    """Normalised values in a text (durations in minutes, so "24 hours" equals "one day")."""
    keys = set()
    for t, v, vmax, unit, _s, _e in find_values(text, currency=currency):
        t = getattr(t, "value", t)
        mult = {"minute": 1, "hour": 60, "day": 1440, "calendar_day": 1440, "week": 10080}.get(unit or "")
        if t == "duration" and mult and isinstance(v, (int, float)):
            keys.add((t, round(v * mult, 6), None if vmax is None else round(vmax * mult, 6), "min"))
        else:
            keys.add((t, v, vmax, unit if t == "duration" else None))
    return keys


class Scene:
    """One generated conversation: slots, speakers and a guard against avoided values."""

    def __init__(self, ctx: "RenderContext", rng: random.Random, avoid: Iterable[str] = (), channel: str = "chat",
                 **slots: str):
        self.ctx, self.rng, self.channel = ctx, rng, channel
        cur = ctx.pack.info.currency
        self.avoid = set().union(*[value_keys(a, cur) for a in avoid]) if avoid else set()
        b = ctx.pack.brand
        self.slots: dict[str, str] = {"company": b.company, "brand": RC.brand_short(ctx.pack),
                                      "website": b.website or f"www.{b.email_domain}",
                                      "hotline": b.phone or "the hotline"}
        self.slots.update(slots)
        self.turns: list[Turn] = []

    def text(self, template: str, **extra: str) -> str:
        """One expansion; re-drawn (up to 8 times) while it would show an avoided value."""
        slots = {**self.slots, **extra}
        cur = self.ctx.pack.info.currency
        out = ""
        for _ in range(8):
            out = finish(expand(template, self.rng, slots, RULES))
            if not self.avoid or not (value_keys(out, cur) & self.avoid):
                return out
        return re.sub(r"\$?\d[\d,.]*", "that", out)

    def add(self, who: str, role: str, *templates: str, chat_only: bool = False, **extra: str) -> Optional[Turn]:
        """A turn of `who`; `chat_only` turns (looking something up, the closing ritual) are
        left out of e-mail."""
        if chat_only and self.channel in ("email", "ticket"):
            return None
        parts = [self.text(t, **extra) for t in templates if t]
        t = Turn(who, role, " ".join(p for p in parts if p))
        self.turns.append(t)
        return t

    def pick(self, seq):
        return seq[self.rng.randrange(len(seq))]


# --- customers ----------------------------------------------------------------------------------
def record_slots(rec: Optional[Rec], cust: Optional[Customer], rng: random.Random) -> dict[str, str]:
    """How people refer to a customer's record, as grammar slots: ref (its full reference),
    ref_short ("the Essential Checking statement from April 30"), thing ("my ..."), kind,
    label, amount, status, rdate, rdate_or_wday..."""
    return rec_slots(rec, cust, rng)


def record_name(rec: Optional[Rec], rng: random.Random) -> str:
    """How a customer names one of their records: "my Essential Checking statement from
    April 30", "my card ending 0991", "my transfer to Elena Petrova"."""
    return rec_slots(rec, None, rng)["thing"]


def rec_slots(rec: Optional[Rec], cust: Optional[Customer], rng: random.Random) -> dict[str, str]:
    month = rng.choice(["January", "February", "March", "April", "May", "June"])
    if rec is None:
        return {"ref": "my account", "ref_short": "your account", "kind": "account", "rdate": "", "rmonth": "",
                "label": "", "amount": "", "rid": "", "status": "", "thing": "my account",
                "rdate_or_wday": rng.choice(WEEKDAYS), "rmonth_or_month": month}
    kind = rec.kind
    label = rec.label if rec.label and rec.label.lower() != kind else ""
    ways = []
    if rec.id and not rec.internal:
        ways.append(f"{kind} {rec.id}")
    if rec.route:
        o, _, d = rec.route.partition(" to ")
        ways.append(f"the trip from {o} to {d}" if not rec.day else f"the {o} to {d} trip on {short_day(rec.day)}")
    if rec.last4:
        ways.append(f"the {label or kind} ending {rec.last4}")
    if label and not rec.last4 and not (rec.internal and rec.detail):
        ways.append(f"the {label}{'' if kind in label.lower() else ' ' + kind}")
    if rec.detail:  # known by a merchant, a payee or its account's product
        what = label or kind
        if re.search(r"\b(?:transfer|payment|wire)\b", what, re.I):
            ways.append(f"the {what} to {rec.detail}")  # a transfer type is a product name: its case stays
        else:
            ways.append(f"the {rec.detail} {what}" + (f" from {short_day(rec.day)}" if rec.day and rng.random() < 0.5
                                                       else ""))
    if rec.day and not rec.route and (rec.internal or not ways) and not rec.detail:
        ways.append(f"the {kind} from {short_day(rec.day)}")
    if not ways:
        ways.append(rec.ref())
    thing = rng.choice(ways)
    full = f"{kind} {rec.id}" if rec.id and not rec.internal else rec.ref()
    if rec.route and rec.id:
        full += f" ({rec.route}{', ' + short_day(rec.day) if rec.day else ''})"
    elif label and rec.id and not rec.last4 and not rec.internal:
        full += f" ({label})"
    elif rec.detail and rec.internal:  # its name in full, without the amount a sentence may say next to it
        what = label or kind
        full = (f"the {what} to {rec.detail}" if re.search(r"\b(?:transfer|payment|wire)\b", what, re.I) else
                f"the {rec.detail} {what}") + (f" on {short_day(rec.day)}" if rec.day else "")
    mine = re.sub(r"^the ", "my ", thing) if thing.startswith("the ") else f"my {thing}"
    return {"ref": full, "ref_short": thing.replace("my ", "the ", 1), "kind": kind, "thing": mine,
            "rdate": short_day(rec.day), "rmonth": rec.day.strftime("%B") if rec.day else "",
            "label": label or kind, "amount": money(rec.amount) if rec.amount is not None else "",
            "rid": rec.id or "", "status": rec.status,
            "rdate_or_wday": short_day(rec.day) if rec.day else rng.choice(WEEKDAYS),
            "rmonth_or_month": rec.day.strftime("%B") if rec.day else month}


def _new_email(c: Customer, rng: random.Random) -> str:
    base = rng.choice([f"{c.first}.{c.last}", f"{c.first[0]}{c.last}", f"{c.first}{c.last[0]}", f"{c.last}.{c.first}"])
    return f"{base.lower()}{rng.choice(['', str(rng.randint(2, 99))])}@{rng.choice(_NEW_DOMAINS)}"


def _new_phone(rng: random.Random) -> str:
    return f"({rng.randint(201, 989)}) 555-{rng.randint(100, 199):04d}"


def misspelt(name: str, rng: random.Random) -> str:
    if len(name) < 4:
        return name + name[-1]
    i = rng.randrange(1, len(name) - 2)
    return name[:i] + name[i + 1] + name[i] + name[i + 2:]


def suits(name: str, c: Customer, rec: Optional[Rec]) -> bool:
    """Whether a scenario makes sense for this customer and record (a receipt needs an
    amount, a status check a status, a card update a card on file)."""
    if name in ("receipt", "charge"):
        return rec is not None and rec.amount is not None and rec.kind not in ("statement", "account", "device")
    if name == "status":
        return rec is not None and bool(rec.status)
    if name == "payment":
        return any(" ending " in p for p in c.payment)
    if name == "copy":
        return rec is not None and rec.kind not in ("card", "line", "device", "usage")
    return True


def _cust_scenarios() -> dict[str, Callable[[Scene, Customer, Optional[Rec]], str]]:
    return {"receipt": _sc_receipt, "status": _sc_status, "contact": _sc_contact, "charge": _sc_charge,
            "details": _sc_details, "login": _sc_login, "name": _sc_name, "payment": _sc_payment,
            "compliment": _sc_compliment, "callback": _sc_callback, "notifications": _sc_notifications,
            "copy": _sc_copy}


def _sc_receipt(s: Scene, c: Customer, rec: Optional[Rec]) -> str:
    cu, ag = s.slots["cname"], s.slots["agent"]
    s.add(cu, "customer", "<c_open>{could|can} you {send|resend|email} me {a receipt|an invoice|a copy of the receipt|the "
          "receipt} for <thing>{, please|}? {I need it for {my expense report|work|my records|my accountant|a claim with my "
          "employer} {by <wday>|this week|before the end of <rmonth_or_month>}|The one I got {<ago>|back then} {never "
          "arrived|went to my old address|is blank}|I {deleted|lost} the original {by mistake|when I cleared my inbox}}.")
    s.add(ag, "agent", "<a_look>", chat_only=True)
    if s.slots["amount"]:
        s.add(ag, "agent", "{Done|All done|Sent|There you go}{, <cfirst>|}{ —|:} {the receipt|it} {shows|is for} <amount>"
              "{ for <ref>|}{ and {went|has gone} to| and I've sent it to|, sent to} <email>{ just now|}.",
              "{It {can|may} take a {few|couple of} minutes to {arrive|come through}{, so check the spam folder of <email> if "
              "it's not there <soon>|}|You can also download {it|receipts like this|the one for <ref_short>} {from your "
              "account on <website>|any time under your account on <website>}{, <cfirst>|, next time|}}.")
    else:
        s.add(ag, "agent", "{Done|Sent}{, <cfirst>|}: {I've {emailed|sent} {it|the receipt} to|it's on its way to} "
              "<email>{ for <ref>|}{, it should {land|arrive} <soon>|}.")
    s.add(cu, "customer", "{Got it|Found it|It's {arrived|here}|Just came through}{ —|,} <c_thanks>", chat_only=True)
    return "{Receipt|Invoice|Copy of receipt|Receipt request} for {<ref>|<thing>}{, please| — <cname>|}"


def _sc_status(s: Scene, c: Customer, rec: Optional[Rec]) -> str:
    cu, ag = s.slots["cname"], s.slots["agent"]
    s.add(cu, "customer", "<c_open>{can|could} you {check|look at|tell me} {the status of|what's happening with|where "
          "things are with} <thing>{ please|}? I {haven't heard anything|haven't had an update|got no email} {since "
          "<rdate_or_wday>|in a while|for a few days|<since_ago>}{ and {wanted to be sure|I'm starting to worry}|}.")
    s.add(ag, "agent", "<a_look>", chat_only=True)
    if rec is not None and rec.done:
        s.add(ag, "agent", "{It's showing as|The status is|It's marked as|Our system has it as} <status>{ on my side| "
              "in our system|}{, <cfirst>|}{, and {nothing else is {pending|outstanding}|everything on it looks {fine|"
              "in order}|there's nothing waiting on you}|}.")
        s.add(cu, "customer", "{Oh good|Great|Perfect|Okay, good to know}{, that's a relief|}{ —|,} I {must have missed|"
              "probably deleted|never saw} the {email|notification|text} about <ref_short>{, thanks <afirst>|}{!|.}")
    elif rec is not None and rec.status.lower() in ("cancelled", "canceled", "closed"):
        s.add(ag, "agent", "{I can see|It shows} <ref_short> {was|as} <status>{ on our side|}{, <cfirst>|}{ — is that what "
              "you {expected|were checking}|, was that you}?")
        s.add(cu, "customer", "{Yes|Yep|Right}, {I {cancelled|closed} it myself {<ago>|back then}|that's {expected|what I "
              "thought}}{ — I just wanted to be sure nothing else {was needed|is pending}|, just double-checking "
              "<ref_short>}{.|!}")
    else:
        s.add(ag, "agent", "{It's currently|Right now it's|It shows as} <status>{, <cfirst>|}{; |, and }{I've {added a "
              "note|put a flag on it} so {it gets looked at|the team sees it} {today|<soon>}|I'll {keep an eye on it|"
              "follow up} {and update you|for you} {by <wday>|<soon>}}.")
        s.add(cu, "customer", "{Okay|OK|Alright}, {thanks|thank you} for {checking|looking into <ref_short>}{ — I'll wait "
              "to hear {from you|back} {by <wday>|then}|, <afirst>|}{.|!}")
    return "{Status of|Update on|Checking on|Any news on} {<ref>|<thing>}{?| — <cname>|}"


def _sc_contact(s: Scene, c: Customer, rec: Optional[Rec]) -> str:
    cu, ag = s.slots["cname"], s.slots["agent"]
    what = s.pick(["email", "phone", "address"])
    if what == "email":
        new, noun = _new_email(c, s.rng), "email address"
        reason = "{I changed jobs|I'm closing my old inbox|the old one gets too much spam|I don't use <email> any more}"
    elif what == "phone":
        new, noun = _new_phone(s.rng), "phone number"
        reason = "{I got a new number|I switched carriers|my old phone was stolen|I moved {abroad|house} <ago>}"
    else:
        new = f"{s.rng.randint(12, 9800)} {s.pick(_STREETS)}{', ' + c.city if c.city else ''}"
        noun, reason = "address", "{I moved {last month|recently|in <rmonth_or_month>|<ago>}|we've just moved house}"
    s.slots["new"] = new
    s.slots["contact_noun"] = noun
    s.slots["reason_short"] = s.pick({"email": ["new job", "old inbox closing", "too much spam"],
                                      "phone": ["new number", "switched carrier", "phone stolen"],
                                      "address": ["moved house", "new address", "just moved"]}[what])
    s.add(cu, "customer", f"<c_open>{{I need|I'd like|I want}} to {{update|change}} the {noun} on my {{account|profile}}"
          f"{{ — {reason}|, {reason}|, since {reason}}}{{.|!}}")
    s.add(ag, "agent", "{Sure|Of course|Happy to help with that|No problem}{, <cfirst>|}{ —|,} <verify_ask>",
          chat_only=True)
    s.add(cu, "customer", "<verify_give>", chat_only=True)
    s.add(ag, "agent", f"{{Thanks|Thank you|Perfect}}{{, that matches|, you're verified|, <cfirst>|}} — {{what's|what is|"
          f"can I have}} the new {noun}{{ you'd like on <ref_short>| you want us to use|, <cfirst>|}}?")
    s.add(cu, "customer", "{It's|The new one is|Sure, it's|Please use} <new>{, thanks|, <afirst>|}{.|!}")
    s.add(ag, "agent", f"{{Done|All set|Updated}}{{, <cfirst>|}}{{:|, and}} {{the|your}} {noun} {{is now|now reads}} <new>"
          f"{{, which {{applies to <ref_short> too|is what we'll use from now on}}|; you'll get a confirmation {{there|at the "
          f"new one}} <soon>|}}.")
    return f"{{Change of|Updating my|New|Please update my}} {noun}{{ — <cname>| on my account| for <ref_short>| (<reason_short>)|}}"


def _sc_charge(s: Scene, c: Customer, rec: Optional[Rec]) -> str:
    cu, ag = s.slots["cname"], s.slots["agent"]
    if not s.slots["amount"]:
        return _sc_details(s, c, rec)
    on = "{ on my <pay>|}" if s.slots.get("pay") else ""
    s.add(cu, "customer", f"<c_open>{{I see|there's|I've got}} a charge of <amount>{on}{{ from <rdate_or_wday>| in "
          "<rmonth_or_month>|}} and {I can't place it|I don't recognise it|I'm not sure what it's for|it doesn't ring a "
          "bell}{ — can you {check|tell me what it is|look it up}|}?")
    s.add(ag, "agent", "<verify_ask>", chat_only=True)
    s.add(cu, "customer", "<verify_give>", chat_only=True)
    s.add(ag, "agent", "{Thanks|Thank you}{, <cfirst>|}{ —|,} {That <amount> is {for|the payment for}|I can see <amount> "
          "{for|against}} <ref>{, {made|taken|recorded} on <rdate_or_wday>|}.")
    s.add(cu, "customer", "{Oh|Ah}{, of course|, right|} — {I {forgot|completely forgot} about <ref_short>|that makes "
          "sense now|I remember {now|<ref_short>}}{, sorry {for the bother|to waste your time}|, thanks <afirst>|}{.|!}")
    return "{Question about a|Unrecognised|Query on a|What is this} charge of <amount>{ in <rmonth_or_month>| from <rdate_or_wday>|}{?| — <cname>|}"


def _sc_details(s: Scene, c: Customer, rec: Optional[Rec]) -> str:
    cu, ag = s.slots["cname"], s.slots["agent"]
    s.add(cu, "customer", "<c_open>{could|can} you {confirm|double-check|read back} the details {on|of} <thing>{ for me|}"
          "{, as|, because} {I want to make sure everything's right {before <wday>|this time}|my <rel> is asking {about it|for "
          "them}|I'm filling in a {form|claim} and need them {today|by <wday>}}{.|!}")
    s.add(ag, "agent", "<a_look>", chat_only=True)
    bits = []
    if rec is not None:
        if rec.route:
            bits.append("{it's|that's} <route>")
        if rec.label and rec.label.lower() != rec.kind:
            bits.append("{it's|that's} {the|your} <label>")
        if rec.day:
            bits.append("{dated|from|on} <rdate>")
        if rec.amount is not None:
            bits.append("{for|totalling} <amount>")
        if rec.status:
            bits.append("{status|currently} <status>")
    body = ", ".join(bits[:3]) or "everything is {as you set it up|in order}"
    s.add(ag, "agent", "{Sure|Of course|Here you go}{, <cfirst>|}: <rid_or>" + body + ".",
          rid_or=(s.slots["ref"] + ", ") if s.slots["rid"] else "")
    s.add(cu, "customer", "{Perfect|Great|That all matches|Yes, that's {right|correct}}{, thanks <afirst>|, thank you|}"
          " — {I'll {tell|forward that to} my <rel>|that's what I have {on paper|in my notes} for <ref_short>|{so|and} "
          "I can finish the {form|claim} {today|by <wday>}}{.|!}")
    return "{Details of|Checking|Confirming|Can you read back} {<ref>|<thing>}{ — <cname>| for my <rel>|}"


def _sc_login(s: Scene, c: Customer, rec: Optional[Rec]) -> str:
    cu, ag = s.slots["cname"], s.slots["agent"]
    s.add(cu, "customer", "<c_open>I can't {log in|sign in|get into my account} {on|through} {the app|the website|"
          "<website>}{ —|;} {it {says my password is wrong|keeps {spinning|timing out}|sends me back to the start}|the "
          "{code|text} never arrives|it {just|} shows an error}{, and it's been like that <since_ago>|, every time|}{.|!}")
    s.add(ag, "agent", "{Sorry about that|That's annoying, sorry|Let's sort that out}{, <cfirst>|}{ —|,} <verify_ask>",
          chat_only=True)
    s.add(cu, "customer", "<verify_give>", chat_only=True)
    s.add(ag, "agent", "{Thanks|Great}{, <cfirst>|}{ —|,} I've {sent|just sent} a {reset link|one-time code|new sign-in "
          "link} to <contact>{; could you try again|; let me know {if|when} it {works|comes through}| — give it a {go|try} "
          "and tell me what happens}.")
    s.add(cu, "customer", "{Got it|That worked|I'm in}{ now|}{, thanks <afirst>|}{ —|,} {I can see <thing> again|everything "
          "for <ref_short> is there|back in business}{!|.}")
    return "{Can't log in|Sign-in problem|Locked out of my account|Problem signing in|Password not working}{ {on the app|on <website>|<since_ago>}|}{ — <cname>|}"


def _sc_name(s: Scene, c: Customer, rec: Optional[Rec]) -> str:
    cu, ag = s.slots["cname"], s.slots["agent"]
    s.slots["wrong"] = misspelt(c.last, s.rng)
    s.add(cu, "customer", "<c_open>my {last name|surname|name} {is spelled wrong|has a typo|shows up wrong} on <thing>{ — "
          "it says|: it's showing} <wrong>{ instead of <clast>| but it should be <clast>}{.|!}")
    s.add(ag, "agent", "{Sorry about that|Thanks for spotting it|Let me fix that}{, <cfirst>|}{ —|,} <verify_ask>",
          chat_only=True)
    s.add(cu, "customer", "<verify_give>", chat_only=True)
    s.add(ag, "agent", "{Fixed|Done|Corrected}: {it now reads|it's} <cname> {on <ref_short>|everywhere}{, and {a new "
          "confirmation is on its way|I've noted the change on your file}|}{.|!}")
    s.add(cu, "customer", "<c_thanks>")
    return "{Name spelling on|Typo in my name on|Wrong surname on|<wrong> should be <clast> on} {<ref>|<thing>}"


def _sc_payment(s: Scene, c: Customer, rec: Optional[Rec]) -> str:
    cu, ag = s.slots["cname"], s.slots["agent"]
    s.slots["old"] = s.slots.get("pay") or "old card"
    s.add(cu, "customer", "<c_open>I {have|got} a new {card|bank card} {and|so} {want|need} to {update|replace} my <old> on "
          "{file|my account}{ — the old one {expired|was lost|was replaced by the bank} <ago>|}{.|!}")
    s.add(ag, "agent", "{Sure|No problem}{, <cfirst>|}{ —|,} {For security|To keep card numbers out of {chat|email}|So you "
          "don't have to type the number here}, I've {sent you|emailed you} a secure link {to add it|for the new card}"
          "{ at <email>|}.")
    s.add(cu, "customer", "{Okay, it's {in|saved} now|Done, I've added it|Added it just now}{ —|,} {should I remove the "
          "<old> {myself|too}|do you need {more|any other details} from me for <ref_short>}?")
    s.add(ag, "agent", "{I can see the new card|The new card is showing} {on your account|now}{, <cfirst>|}{, and I've "
          "{removed|taken off} the <old>|} — {you're all set|nothing else needed}{ for <ref_short>|}{.|!}")
    return "{Updating my card|New payment card|Card on file|Replacing my <old>}{ — <cname>| for <ref_short>|}"


def _sc_compliment(s: Scene, c: Customer, rec: Optional[Rec]) -> str:
    cu, ag = s.slots["cname"], s.slots["agent"]
    s.add(cu, "customer", "<c_open>{I just wanted to|just a quick note to} {say thanks to <colleague> for {helping|sorting "
          "things out} with|say how helpful <colleague> was with} <thing>{ {last week|on <rdate_or_wday>|the other "
          "day|<ago>}|}{.|!}")
    s.add(ag, "agent", "{That's {so|really} {kind|nice} of you|Thank you for taking the time}, <cfirst>{ —|,} {I'll pass "
          "it on to <colleague>|<colleague> will be {glad|happy} to hear it|I'll make sure <colleague>'s team lead sees "
          "this} {today|before <wday>|}{.|!}")
    s.add(cu, "customer", "<c_close>", chat_only=True)
    return "{Thank you to|Compliment for|Thanks to|A thank-you for} <colleague_full>{ re <ref_short>| from <cname>| — <ref_short>|}"


def _sc_callback(s: Scene, c: Customer, rec: Optional[Rec]) -> str:
    cu, ag = s.slots["cname"], s.slots["agent"]
    s.slots["cb"] = s.pick(WEEKDAYS)
    s.slots["phone"] = c.phone or "the number on file"
    s.add(cu, "customer", "<c_open>{could|can} someone call me back about <thing>{ on <cb>| tomorrow|}? {I'm at work|I'm "
          "driving|I'm in meetings|I'm looking after my <rel>} {until|till} {lunch|the afternoon|about four}{ and can't "
          "{type much|stay on chat}|}{, <afirst>| on <cb>| so a call after that is easier|}.")
    s.add(ag, "agent", "{Of course|Sure|Happy to}{ —|,} {which number should we use|is <phone> still the best "
          "number|what's the best number to reach you} {on <cb>|for the call{ about <ref_short>|}}{, <cfirst>|}?")
    s.add(cu, "customer", "{Yes|Yep|That's right}, {that one|<phone> is fine|that's the best one}{ — {any time after <cb> "
          "lunch|mornings are harder{ on <cb>|}|ask for <cfirst> if my <rel> answers|I'm free from {two|three} on <cb>}| "
          "for <cb>}{, <afirst>|}{.|!}")
    s.add(ag, "agent", "{Booked|I've booked|I've scheduled} a callback for <cb> {afternoon|after lunch|between two and "
          "four}{ about <ref_short>|}{; |, and }{you'll get a text {before|when} we call|the note is on your file for "
          "whoever calls|<colleague> {or I|} will ring you}.")
    return "{Callback request|Please call me back|Call back please} about {<ref>|<thing>}{ on <cb>| — <cname>|}"


def _sc_notifications(s: Scene, c: Customer, rec: Optional[Rec]) -> str:
    cu, ag = s.slots["cname"], s.slots["agent"]
    s.add(cu, "customer", "<c_open>{how do I|can you} {stop|turn off} the {text|email|app} {messages|notifications|"
          "updates} {about|for} <thing>{, as|, because} {I get {three|several|a few} a day|they're {a bit much|filling my inbox}|my "
          "<rel> gets them too} {<since_ago>|now|}{.|!}")
    s.add(ag, "agent", "{Sure|Of course}{, <cfirst>|}{ —|,} I've {switched|turned} off the {marketing|reminder|update} "
          "{messages|notifications}{ for <ref_short>|}; {you'll still get|we'll still send} {anything about a change to "
          "<ref_short>|confirmations and receipts{ to <email>|}}.")
    s.add(cu, "customer", "<c_thanks>")
    return "{Too many notifications|Turn off notifications|Notification settings|Fewer messages please}{ for {<ref>|<thing>}| — <cname>|}"


def _sc_copy(s: Scene, c: Customer, rec: Optional[Rec]) -> str:
    cu, ag = s.slots["cname"], s.slots["agent"]
    s.slots["doc"] = s.pick(["a copy of", "a PDF of", "a printout of", "the paperwork for", "a summary of"])
    s.add(cu, "customer", "<c_open>{could I get|can you send me|I need} <doc> <thing> {as my <rel> {needs|wants} it {for "
          "{work|a form}|by <wday>}|for {my records|a visa application|a mortgage application|my tax return|an insurance "
          "claim}}{, please|}{?|.}")
    s.add(ag, "agent", "<a_look>", chat_only=True)
    s.add(ag, "agent", "{Sent|Done|On its way}{, <cfirst>|}: {it's in your inbox at <email>|I've emailed it to <email>}"
          "{ as a PDF| with <ref> in the subject line|; it should arrive <soon>|}.")
    s.add(cu, "customer", "<c_thanks>", chat_only=True)
    return "{Copy of|Paperwork for|Documents for|<doc>} {<ref>|<thing>}{ — <cname>| for my <rel>|}"


def _contact_slot(c: Customer, rng: random.Random) -> str:
    if c.email and (rng.random() < 0.75 or not c.phone):
        return c.email
    return c.phone or c.name


def customer_scene(ctx: "RenderContext", rng: random.Random, channel: str, customer: Optional[Customer],
                    agent: Optional[str], record: Optional[Rec], avoid: Iterable[str]):
    """A scene about one customer and one of their records, its slots filled from the database."""
    v = view(ctx.db)
    cust = customer or v.customer(rng, lambda c: bool(c.records)) or v.customer(rng) or brand_customer(ctx, rng)
    rec = record if record is not None else (rng.choice(cust.records) if cust.records else None)
    agent = agent or RC.staff(ctx, rng, "agent", 1)[0]
    colleague = RC.staff(ctx, rng, "agent", 1, exclude=(agent,))[0]
    contact = _contact_slot(cust, rng)
    cards = [p for p in cust.payment if " ending " in p]
    slots = {"cname": cust.name, "cfirst": cust.first, "clast": cust.last, "email": cust.email or
             ctx.writer.email(cust.name, internal=False), "agent": agent, "afirst": RC.first(agent),
             "colleague_full": colleague, "colleague": RC.first(colleague), "rel": rng.choice(RELATIONS),
             "pay": rng.choice(cards) if cards else "", "contact": contact,
             "contact_kind": "email address" if "@" in contact else "phone number",
             "route": rec.route if rec else "", "rid_or": ""}
    slots.update(rec_slots(rec, cust, rng))
    return Scene(ctx, rng, avoid, channel, **slots), cust, rec, agent


def customer_of(ctx: "RenderContext", name: str, ref: str = "", email: str = "") -> Customer:
    """The seed database's customer named `name` (records, contacts and all), else a customer
    of that name with no records: the routine talk of a conversation whose speaker has no
    record of their own is still theirs (`customer_exchange` with no customer picks someone
    else of the database, whose e-mail the speaker then gave as their own)."""
    found = [c for c in view(ctx.db).customers if c.name == name]
    return found[0] if found else Customer(ref, name, email=email)


def customer_exchange(ctx: "RenderContext", rng: random.Random, *, channel: str = "chat",
                      customer: Optional[Customer] = None, agent: Optional[str] = None,
                      record: Optional[Rec] = None, scenario: Optional[str] = None,
                      avoid: Iterable[str] = ()) -> Exchange:
    """A support conversation with one customer about one of their records (see module doc)."""
    s, cust, rec, agent = customer_scene(ctx, rng, channel, customer, agent, record, avoid)
    return run_exchange(s, cust, rec, agent, channel, scenario)


def run_exchange(s: Scene, cust: Customer, rec: Optional[Rec], agent: str, channel: str,
                 scenario: Optional[str]) -> Exchange:
    rng = s.rng
    scenarios = _cust_scenarios()
    name = scenario or rng.choice([n for n in sorted(scenarios) if suits(n, cust, rec)])
    subject = s.text(scenarios[name](s, cust, rec))
    opening, closing = 1, 0
    if channel in ("chat", "call") and len(s.turns) > 1 and rng.random() < 0.6:
        s.turns.insert(1, Turn(agent, "agent", s.text("<a_greet>")))
        opening = 2
    if channel in ("email", "ticket"):
        if rng.random() < 0.4:
            s.add(cust.name, "customer", "<c_thanks>")
        turns = _as_email(s, s.turns, cust, agent) if channel == "email" else s.turns
    else:
        if rng.random() < 0.75:
            s.add(agent, "agent", "<a_more>")
            s.add(cust.name, "customer", "<c_close>")
            closing += 2
        s.add(agent, "agent", "<a_bye>")
        closing += 1
        turns = s.turns if channel != "call" else [Turn(t.who, t.role, as_spoken(t.text, rng)) for t in s.turns]
    return Exchange(cust, agent, rec, subject, name, turns, opening, closing)


def brand_customer(ctx: "RenderContext", rng: random.Random) -> Customer:
    p = RC.pick_customer(ctx, rng)
    return Customer(p.ref or "", p.name, email=ctx.writer.email(p.name, internal=False))


def _as_email(s: Scene, turns: list[Turn], cust: Customer, agent: str) -> list[Turn]:
    """Turns regrouped as e-mail messages: consecutive turns of one side become one message,
    with a salutation and a sign-off (the opening greeting of a chat line is dropped)."""
    out: list[Turn] = []
    for t in turns:
        if out and out[-1].role == t.role:
            out[-1].text += " " + t.text
        else:
            out.append(Turn(t.who, t.role, t.text))
    for i, m in enumerate(out):
        body = re.sub(r"^(Hi|Hello|Hey|Morning|Good \w+)( there)?(, (it's|this is) [^,—]+|, \w+ here)?\s*[—,]\s*", "",
                      m.text)
        to = cust.first if m.role != "customer" else RC.first(agent)  # the salutation names them: no vocative
        body = re.sub(rf",\s+{re.escape(to)}(?=\s*(?:[—:,.!?;]|$))", "", body)
        body = body[:1].upper() + body[1:]
        if m.role == "customer":
            hi = s.text("{Hello|Hi|Dear <brand> team|Hi there|Good {morning|afternoon}}{,|}") if i == 0 else \
                s.text("{Hi|Hello|Dear} <afirst>{,|}")
            bye = s.text("{Thanks|Thank you|Many thanks|Best|Kind regards|Regards|Cheers}{,|}") + "\n" + \
                s.text("{<cfirst>|<cname>}")
        else:
            hi = s.text("{Hi|Hello|Dear} {<cfirst>|<cname>}{,|}")
            bye = s.text("{Kind regards|Best regards|Best wishes|Thanks|Warm regards}{,|}") + "\n" + RC.first(agent)
        m.text = f"{hi}\n\n{body}\n\n{bye}"
    return out


_DISFLUENT = ["um", "uh", "so", "yeah", "okay", "right"]


def as_spoken(text: str, rng: random.Random) -> str:
    """A written line as it sounds on a call: a filler now and then, no list punctuation."""
    text = text.replace(" — ", ", ").replace(": ", ", ")
    if rng.random() < 0.35:
        f = rng.choice(_DISFLUENT)
        keep = text[:2] in ("I ", "I'") or text[1:2].isupper()
        text = f"{f.capitalize()}, {text if keep else text[:1].lower() + text[1:]}"
    return text


