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

from . import common as C
from .grammar import finish, expand
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

_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
_NEW_DOMAINS = ["fastmail.example", "inbox.example", "post.example", "mailbox.example", "webmail.example"]
_STREETS = ["Birch Lane", "Harbor View Rd", "Juniper Court", "Mill Street", "Orchard Way", "Ridge Avenue",
            "Sycamore Drive", "Canal Street", "Aspen Terrace", "Lakeshore Blvd", "Quarry Road", "Willow Bend"]
_RELATIONS = ["wife", "husband", "partner", "daughter", "son", "mum", "dad", "colleague", "flatmate", "sister", "brother"]


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
        self.slots: dict[str, str] = {"company": b.company, "brand": C.brand_short(ctx.pack),
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
    return _rec_slots(rec, cust, rng)


def record_name(rec: Optional[Rec], rng: random.Random) -> str:
    """How a customer names one of their records: "my Essential Checking statement from
    April 30", "my card ending 0991", "my transfer to Elena Petrova"."""
    return _rec_slots(rec, None, rng)["thing"]


def _rec_slots(rec: Optional[Rec], cust: Optional[Customer], rng: random.Random) -> dict[str, str]:
    month = rng.choice(["January", "February", "March", "April", "May", "June"])
    if rec is None:
        return {"ref": "my account", "ref_short": "your account", "kind": "account", "rdate": "", "rmonth": "",
                "label": "", "amount": "", "rid": "", "status": "", "thing": "my account",
                "rdate_or_wday": rng.choice(_WEEKDAYS), "rmonth_or_month": month}
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
            "rdate_or_wday": short_day(rec.day) if rec.day else rng.choice(_WEEKDAYS),
            "rmonth_or_month": rec.day.strftime("%B") if rec.day else month}


def _new_email(c: Customer, rng: random.Random) -> str:
    base = rng.choice([f"{c.first}.{c.last}", f"{c.first[0]}{c.last}", f"{c.first}{c.last[0]}", f"{c.last}.{c.first}"])
    return f"{base.lower()}{rng.choice(['', str(rng.randint(2, 99))])}@{rng.choice(_NEW_DOMAINS)}"


def _new_phone(rng: random.Random) -> str:
    return f"({rng.randint(201, 989)}) 555-{rng.randint(100, 199):04d}"


def _misspelt(name: str, rng: random.Random) -> str:
    if len(name) < 4:
        return name + name[-1]
    i = rng.randrange(1, len(name) - 2)
    return name[:i] + name[i + 1] + name[i] + name[i + 2:]


def _suits(name: str, c: Customer, rec: Optional[Rec]) -> bool:
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
    s.slots["wrong"] = _misspelt(c.last, s.rng)
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
    s.slots["cb"] = s.pick(_WEEKDAYS)
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


def _customer_scene(ctx: "RenderContext", rng: random.Random, channel: str, customer: Optional[Customer],
                    agent: Optional[str], record: Optional[Rec], avoid: Iterable[str]):
    """A scene about one customer and one of their records, its slots filled from the database."""
    v = view(ctx.db)
    cust = customer or v.customer(rng, lambda c: bool(c.records)) or v.customer(rng) or _brand_customer(ctx, rng)
    rec = record if record is not None else (rng.choice(cust.records) if cust.records else None)
    agent = agent or C.staff(ctx, rng, "agent", 1)[0]
    colleague = C.staff(ctx, rng, "agent", 1, exclude=(agent,))[0]
    contact = _contact_slot(cust, rng)
    cards = [p for p in cust.payment if " ending " in p]
    slots = {"cname": cust.name, "cfirst": cust.first, "clast": cust.last, "email": cust.email or
             ctx.writer.email(cust.name, internal=False), "agent": agent, "afirst": C.first(agent),
             "colleague_full": colleague, "colleague": C.first(colleague), "rel": rng.choice(_RELATIONS),
             "pay": rng.choice(cards) if cards else "", "contact": contact,
             "contact_kind": "email address" if "@" in contact else "phone number",
             "route": rec.route if rec else "", "rid_or": ""}
    slots.update(_rec_slots(rec, cust, rng))
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
    s, cust, rec, agent = _customer_scene(ctx, rng, channel, customer, agent, record, avoid)
    return _exchange(s, cust, rec, agent, channel, scenario)


def _exchange(s: Scene, cust: Customer, rec: Optional[Rec], agent: str, channel: str,
              scenario: Optional[str]) -> Exchange:
    rng = s.rng
    scenarios = _cust_scenarios()
    name = scenario or rng.choice([n for n in sorted(scenarios) if _suits(n, cust, rec)])
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
        turns = s.turns if channel != "call" else [Turn(t.who, t.role, _spoken(t.text, rng)) for t in s.turns]
    return Exchange(cust, agent, rec, subject, name, turns, opening, closing)


def _brand_customer(ctx: "RenderContext", rng: random.Random) -> Customer:
    p = C.pick_customer(ctx, rng)
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
        to = cust.first if m.role != "customer" else C.first(agent)  # the salutation names them: no vocative
        body = re.sub(rf",\s+{re.escape(to)}(?=\s*(?:[—:,.!?;]|$))", "", body)
        body = body[:1].upper() + body[1:]
        if m.role == "customer":
            hi = s.text("{Hello|Hi|Dear <brand> team|Hi there|Good {morning|afternoon}}{,|}") if i == 0 else \
                s.text("{Hi|Hello|Dear} <afirst>{,|}")
            bye = s.text("{Thanks|Thank you|Many thanks|Best|Kind regards|Regards|Cheers}{,|}") + "\n" + \
                s.text("{<cfirst>|<cname>}")
        else:
            hi = s.text("{Hi|Hello|Dear} {<cfirst>|<cname>}{,|}")
            bye = s.text("{Kind regards|Best regards|Best wishes|Thanks|Warm regards}{,|}") + "\n" + C.first(agent)
        m.text = f"{hi}\n\n{body}\n\n{bye}"
    return out


_DISFLUENT = ["um", "uh", "so", "yeah", "okay", "right"]


def _spoken(text: str, rng: random.Random) -> str:
    """A written line as it sounds on a call: a filler now and then, no list punctuation."""
    text = text.replace(" — ", ", ").replace(": ", ", ")
    if rng.random() < 0.35:
        f = rng.choice(_DISFLUENT)
        keep = text[:2] in ("I ", "I'") or text[1:2].isupper()
        text = f"{f.capitalize()}, {text if keep else text[:1].lower() + text[1:]}"
    return text


# --- staff ---------------------------------------------------------------------------------------
_TOOLS = ["<brand> Desk", "the CRM", "the phone system", "the knowledge base search", "the shared inbox",
          "the wallboard", "the QA portal", "the VPN", "the rota spreadsheet", "the chat widget", "the refund queue view",
          "the call recorder", "the reporting dashboard", "single sign-on", "the softphone", "the callback scheduler",
          "the macro library", "the case search", "the email templates", "the document viewer"]
_SYMPTOMS2 = ["froze", "logged me out", "threw an error", "timed out", "lost my filters", "went blank", "hung on save",
              "dropped my notes", "showed the wrong queue"]
_SYMPTOMS = ["is really slow", "keeps logging me out", "won't load", "is throwing an error on save", "froze twice",
             "shows yesterday's numbers", "is timing out", "won't open attachments", "lost my saved filters",
             "shows a blank page", "keeps asking me to sign in again", "is crawling", "won't let me save notes",
             "shows the spinning wheel", "has the wrong customer's name in the header"]
_REASONS = ["a dentist appointment", "my kid's school play", "a family thing", "a doctor's appointment",
            "my sister's wedding", "a hospital check-up", "the car going in for service", "an evening class",
            "a house move", "jury duty", "a parents' evening", "a driving test", "a boiler repair visit",
            "my nephew's christening", "an eye test", "a funeral", "the vet", "a viewing for a flat",
            "my daughter's sports day", "a college exam"]
_ROOMS = ["the Maple room", "room 3B", "the big meeting room", "the training room", "the fourth floor kitchen",
          "the Harbour room", "room 2A", "the library corner", "the Willow room", "the quiet room", "room 4C",
          "the Lighthouse room"]
_MEETINGS = ["the weekly ops review", "the team huddle", "the QA calibration session", "the monthly all-hands",
             "the one-to-ones", "the process review", "the escalations catch-up", "the rota planning call",
             "the complaints review", "the knowledge base review", "the Friday wrap-up", "the quality huddle"]
# Office things that break, where they are, and how they break and get fixed (an object is
# told of with a place: "the printer by the kitchen on three").
_OFFICE_THINGS = [("printer", "is jammed again", "is working again, facilities swapped the drum", "it's"),
                  ("badge reader", "isn't reading cards", "is fixed, it needed a reset", "it's"),
                  ("coffee machine", "is out of order", "is back, someone descaled it", "it's"),
                  ("microwave", "has died", "has been replaced", "it's"),
                  ("water cooler", "is leaking", "is sorted, it was a loose valve", "it's"),
                  ("meeting room screen", "won't pick up laptops", "is sorted, it was the adapter", "it's"),
                  ("air conditioning", "is blowing hot air", "is fixed, it was a thermostat fault", "it's"),
                  ("lift", "is out of service", "is running again", "it's"),
                  ("dishwasher", "is flooding the floor", "is fixed, the filter was blocked", "it's"),
                  ("fridge", "is warm", "is cold again after a reset", "it's"),
                  ("headset charging rack", "isn't charging anything", "is charging again, a fuse had gone", "it's"),
                  ("Wi-Fi", "keeps dropping", "is stable again after a router swap", "it's"),
                  ("blinds", "are stuck half down", "are fixed", "they're"),
                  ("heating", "is off", "is back on", "it's"),
                  ("door entry buzzer", "isn't working", "is working again", "it's"),
                  ("standing desk by the window", "won't go up", "moves again, it needed a new motor", "it's"),
                  ("locker keys", "have gone missing", "have turned up at reception", "they're"),
                  ("car park barrier", "is stuck open", "is working again", "it's")]
_OFFICE_PLACES = ["on the second floor", "on four", "by the kitchen", "in the east wing", "near the lifts",
                  "by reception", "on three", "in the north corner", "on the ground floor", "by the training room",
                  "in <room>", "at the side entrance"]
_VOLUME_TOPICS = ["sign-in problems", "receipt requests", "address changes", "status checks", "callback requests",
                  "card updates", "notification complaints", "questions about statements", "name corrections",
                  "requests for paperwork", "app sign-in codes", "payment card updates"]


def _staff_slots(ctx: "RenderContext", rng: random.Random, people: list[str]) -> dict[str, str]:
    v = view(ctx.db)
    cust = v.customer(rng, lambda c: bool(c.records)) or _brand_customer(ctx, rng)
    rec = rng.choice(cust.records) if cust.records else None
    other = v.customer(rng, lambda c: bool(c.records) and c.name != cust.name) or cust
    rec2 = rng.choice(other.records) if other.records else None
    slots = {"cname": cust.name, "cfirst": cust.first, "clast": cust.last, "rel": rng.choice(_RELATIONS),
             "day": rng.choice(_WEEKDAYS), "day2": rng.choice(_WEEKDAYS),
             "tool": rng.choice(_TOOLS).replace("<brand>", C.brand_short(ctx.pack)),
             "symptom": rng.choice(_SYMPTOMS), "symptom2": rng.choice(_SYMPTOMS2), "reason": rng.choice(_REASONS),
             "room": rng.choice(_ROOMS), "meeting": rng.choice(_MEETINGS),
             "time": rng.choice(["9:30", "10", "11", "noon", "1:30", "2", "3", "3:30", "4"]),
             "time2": rng.choice(["10:30", "11:30", "2:30", "4:30", "5", "9:45", "1:15", "3:45"]),
             "vtopic": _volume_topic(v, rng, rec),
             "email": cust.email, "cid": cust.id, "route": rec.route if rec else "",
             "cname2": other.name, "cfirst2": other.first,
             "ref2": _rec_slots(rec2, other, rng)["ref_short"] if rec2 is not None else f"{other.first}'s account",
             "kind2": rec2.kind if rec2 is not None else "account",
             "lead": C.first(C.staff(ctx, rng, "manager", 1, exclude=tuple(people))[0]),
             "shift2": rng.choice(["late", "early", "weekend", "evening", "Saturday", "mid"])}
    slots["tool_n"] = re.sub(r"^the ", "", slots["tool"])  # "the <tool_n> problem"
    slots["meeting_n"] = re.sub(r"^the ", "", slots["meeting"])
    slots.update(_rec_slots(rec, cust, rng))
    for i, p in enumerate(people):
        slots[f"p{i}"] = p
        slots[f"f{i}"] = C.first(p)
    return slots


def _volume_topic(v, rng: random.Random, rec: Optional[Rec] = None) -> str:
    """What the queue is full of: a routine request type, or questions about a product or
    merchant of the thread's own record ("questions about Everyday Savings statements")."""
    named = [(rec.detail or rec.label, rec.label if rec.detail and rec.label else rec.kind)] if rec is not None and \
        (rec.detail or rec.label) and (rec.detail or rec.label).lower() != rec.kind else []
    if named and rng.random() < 0.6:
        name, kind = named[0]
        return rng.choice([f"questions about {name} {kind}s", f"{name} {kind} queries", f"calls about {name} {kind}s"]) \
            if not name.lower().endswith(kind) else f"questions about {name}s"
    return rng.choice(_VOLUME_TOPICS)


def _thread_handoff(s: Scene, ppl: list[str]) -> str:
    a, b = ppl[0], ppl[1]
    s.add(a, "colleague", "{Could|Can|Would} {someone|anyone|one of you} {pick up|take over|look after} <cname>'s {case|"
          "query|email|chat} about <ref_short>{ {today|this afternoon|tomorrow}|}? <cfirst> has {written in|called|"
          "chased} {twice|three times|again} {since <wday>|this week|today}{, and|;} I'm {off tomorrow|on the late shift|"
          "in training {all afternoon|until <time2>}|at the dentist from <time>|covering the phones {on <wday>|all day}|"
          "on leave from <wday>}.")
    s.add(b, "colleague", "{I'll take it|I've got it|Taking it|Leave it with me|Happy to take it}, <f0> — {anything I "
          "should know before I {call|email} <cfirst>|is <cfirst>'s {email|case} in the {queue|shared inbox|callback "
          "list} or your inbox|did <cfirst> ask for a call or an email|is <ref_short> the only thing <cfirst> is "
          "chasing}?")
    s.add(a, "colleague", "{Thanks|Cheers|You're a star|Brilliant}{, <f1>|} — {it's all in the notes on <ref>|notes are on "
          "<ref>{ in <brand> Desk| in the CRM|}|the last message from <cfirst> is in the shared inbox{, dated <wday>|}}{, and <cfirst> {prefers"
          " email|is happy to get a call|asked for a callback after <time>}|}.")
    s.add(b, "colleague", "{Done|Sorted|All done} — {I {called|emailed} <cfirst> back {this morning|after lunch|just now} "
          "and {updated the notes on <ref_short>|closed the loop}|<cfirst> {has what they need|is happy} and the case is "
          "{closed|noted on <ref_short>}}{, <f0>|}{.|!}")
    return "{Hand-off|Pick-up|Can someone take}: <cname>, <ref>"


def _thread_shift(s: Scene, ppl: list[str]) -> str:
    a, b, c = ppl[0], ppl[1], ppl[2 % len(ppl)]
    s.slots["shift"] = s.pick(["early", "late", "mid", "Saturday", "evening"])
    s.add(a, "colleague", "{Could|Would} {anyone|someone} {swap|cover} {my|the} <day> <shift> shift{ with me|}{ —|, as} "
          "I've got <reason>{ and can't move it| that week| that day|}{; I can {take one of yours|do your <day2> in return|"
          "give you a weekend shift back}|}?")
    if len(ppl) > 2 and s.rng.random() < 0.6:
        s.add(c, "colleague", "{I can't that day|Not me on <day>|I'm away that week|I'm already on the <day> rota|I've "
              "got <meeting> that day}{, sorry|}, <f0>{ — maybe <f1> can {help|do it}|, try <f1>|, hope someone can}{.|!}")
    s.add(b, "colleague", "{I can {do it|take it|cover it}|Happy to swap|I'll take the <day> <shift>}, <f0>{ — {give me "
                          "your <day2> and we're even|I'll update the rota|just tell <f2>}|, no problem|}{.|!}")
    s.add(a, "colleague", "<s_thanks>", to=s.slots["f1"])
    s.turns[-1].text += " " + s.text("{{I've|Just} updated the rota|I've changed it on the rota|Rota's updated} for <day>"
                                     "{ and told <f2>|, so <f1> is on the <shift> now| and {let|told} <f2> know}.")
    return "{Shift swap|Cover needed|Swap} <day> <shift>"


def _thread_tool(s: Scene, ppl: list[str]) -> str:
    a, b, c = ppl[0], ppl[1], ppl[2 % len(ppl)]
    s.slots["inc"] = str(s.rng.randint(10000, 99999))
    s.add(a, "colleague", "{{Is anyone else finding|Anyone else seeing} <tool> <symptom><when_sym>{, which makes <cfirst>'s"
          " <kind> {really slow|a pain} to update|}?|Heads-up: <tool> <symptom><when_sym>{, which makes <cfirst>'s <kind> "
          "{really slow|a pain} to update|}.}", when_sym=s.pick(["", " this morning", " since lunch", " today",
                                                                 " since " + s.slots["time"]]))
    s.add(b, "colleague", "{Same here|Yes, same for me|Me too}, <f0> — {it <symptom2> {twice|three times} {in the last hour|"
          "this morning|since <time>}{ on <cname2>'s case|}|I had to {restart|log back in} {twice|three times} {on "
          "<cname>'s case|before <time2>|during a call with <cfirst2>}}{.|!}")
    s.add(c, "colleague", "I've {raised|logged} {it|<tool>|the <tool_n> problem} with IT as INC-<inc>{ and they're {looking at "
          "it|on it} {now|this afternoon}|; they {think it's|suspect} {the update from <wday>|a network blip|the new "
          "release}}, <f0>{ — {I mentioned <cname>'s case|it's on the list for <meeting>}|}.")
    s.add(c, "colleague", "{Update on INC-<inc>|Update from IT|IT just told me}: <tool> {is back|is working again|should be "
          "fine now} {after a restart|after they rolled back a change|after a fix on their side}{ at <time2>|}{ — shout if "
          "it {happens again|acts up again|is still {slow|odd} for you}|}{.|!}")
    return "<tool> {problems|issue|outage|slowness}"


def _thread_meeting(s: Scene, ppl: list[str]) -> str:
    a, b, c = ppl[0], ppl[1], ppl[2 % len(ppl)]
    s.add(a, "manager", "{Quick note:|Heads-up:|FYI,} <meeting> {moves|is moving} to <day> at <time>{ in <room>|}{ because "
          "{the room is double-booked|half the team is on training|of the system upgrade|it clashes with the "
          "all-hands|<f2> is out on <day2>}|}{.|!}")
    s.add(b, "colleague", "{Noted|Thanks|Got it}{, <f0>|} — {I've moved <meeting> in my calendar{ to <day>|}|see you in "
          "<room>{ on <day>|}|I'll bring the <wday> numbers to <meeting>|<day> at <time> works{ for me| for <meeting>}}{.|!}")
    if s.rng.random() < 0.6:
        s.add(c, "colleague", "{Will <meeting> still be|Is <meeting> still} {an hour|the usual length}, <f0>, {as I'm on "
              "the phones from <time2> on <day>|as I have a callback {booked|with <cfirst>} at <time2> on <day>|as I've "
              "got <reason> that afternoon}?")
        s.add(a, "manager", "{Yes|Should be}, <f2>{ —|,} {we'll finish {by|before} <time2>|I'll keep it short{ on <day>|}}"
              "{ — {start with your item|you can drop off early|I'll take your update first}|}.")
    return "{New time for|Moving} <meeting>: <day>"


def _thread_office(s: Scene, ppl: list[str]) -> str:
    a, b, c = ppl[0], ppl[1], ppl[2 % len(ppl)]
    thing, broken, fixed, it = s.pick(_OFFICE_THINGS)
    what = f"the {thing} {s.pick(_OFFICE_PLACES)}"
    s.slots.update(what=expand(what, s.rng, s.slots, RULES), broken=broken, fixed=fixed, it=it, thing_n=thing)
    s.add(a, "colleague", "{FYI|Heads-up|Just so you know}{,|:} <what> <broken>{ again|}{ {this morning|since <time>|"
          "today}|}{, and I've {told|emailed} facilities|; {facilities know|I've logged it with facilities}|}{.|!}")
    if s.rng.random() < 0.5:
        s.add(b, "colleague", "{Thanks for flagging|Ugh, thanks|Good to know}, <f0> — {I'll {use|go to} the one on the "
              "{third|first} floor {for now|until then}|that explains {the queue|why <f2> was late}|I was about to {try it|"
              "head there}}{ before <meeting>| after my <time2> call|}{.|!}")
    s.add(c, "colleague", "{Update:|Good news:|Facilities {say|just said}} <what> <fixed>"
          "{ — thanks to <f0> for {chasing|reporting it}|, says <f1>|, so <wday> should be fine| if you were waiting, <f1>"
          "|}{.|!}")
    return "{<what> <broken>|<what>: <broken>|<what> — facilities {know|called}}"


def _thread_starter(s: Scene, ppl: list[str]) -> str:
    a, b = ppl[0], ppl[1]
    new = s.ctx.writer.person(s.rng, "colleague")
    s.slots.update(new=new, newf=new.split()[0])
    s.add(a, "manager", "<new> {joins|starts with} {us|the team} {on <day>|next week|on Monday}{ on the {chat|phones|email} "
          "queue|}{ — |; }{<f1> will be <newf>'s buddy for the first {week|fortnight}|please say hi to <newf> when you see "
          "them|I'll do the office tour {on day one|on <day>}|<newf> comes from {a hotel front desk|retail|another contact "
          "centre}}{.|!}")
    s.add(b, "colleague", "{Happy to|Great}{, <f0>|} — {I'll {set up|book} a {shadowing session|coffee} with <newf> on "
          "<day2>|I've added <newf> to the team chat{ and the <day> rota|}|I'll show <newf> how we use <tool>}{.|!}")
    return "{Welcome|New starter}: <new>"


def _thread_qa(s: Scene, ppl: list[str]) -> str:
    a, b = ppl[0], ppl[1]
    s.add(a, "manager", "{Shout-out|A quick shout-out|Nice work} to <f1> for {the way they handled|handling} <cname>'s "
          "{call|chat|email} about <ref_short>{ on <day>|}{: {calm|patient|clear} and {thorough|kind|quick}|}{ — it's going "
          "in the {QA examples|training pack} for <meeting>|}{.|!}")
    s.add(b, "colleague", "{Thanks|Aw, thanks|Thank you}{, <f0>|} — <cfirst> was {lovely|patient|easy to help} {to be "
          "fair|in the end|once we found <ref_short>}{.|!}")
    return "{Shout-out|Good call} — <f1>"


def _thread_volume(s: Scene, ppl: list[str]) -> str:
    a, b = ppl[0], ppl[1]
    s.add(a, "manager", "{Volume is|Queues are|The queue is} {up|busier than usual|heavy} {today|this week|since <day>}, "
          "{mostly|a lot of it} <vtopic>{ like <cfirst>'s about <ref_short>|}{ — |; }{please {keep|try to keep} {chats|calls} "
          "{focused|moving}|if you have a backlog, flag it to me {by <time2>|before <day>}}{.|!}")
    s.add(b, "colleague", "{Seeing the same|Same on my side|Yes, noticed that}{, <f0>|}{, {lots|loads} of <vtopic>|, "
          "<cfirst2> was one of them|} — {would a {macro|saved reply} for <vtopic> help|want me to draft a {macro|saved "
          "reply} for <vtopic>}?")
    s.add(a, "manager", "{Good idea|Yes please|Please do}, <f1> — {draft one for <vtopic> and I'll review it {by <day>|this "
          "afternoon|after <meeting>}|send me a draft{ for <vtopic>|} and I'll add it to the macro library{ before <day>|}|"
          "{base it on|start from} your reply to <cfirst2>{ and I'll review it by <day>|}}{.|!}")
    return "{Queue|Volume} {update|this week}: <vtopic>"


def _thread_training(s: Scene, ppl: list[str]) -> str:
    a, b = ppl[0], ppl[1]
    s.add(a, "manager", "{Reminder|Heads-up}: {training|a refresher} on <tool> {is|moves to} <day> at <time> in <room>{ — "
          "{bring your laptop|it's about an hour|lunch is provided|<f1> is running it}|}{.|!}")
    s.add(b, "colleague", "{Thanks|Noted}{, <f0>|} — {can I join the <day2> <tool_n> session instead, as I'm on the phones "
          "at <time>?|I'll be in <room>{ after my <time2> callback| once <cfirst>'s callback is done|}.|will the <tool_n> "
          "session on <day> be recorded?}")
    s.add(a, "manager", "{Sure|Yes|Of course}, <f1> — {I'll {add|move} you to the <day2> {one|session}{ in <room>|}|it will "
          "be recorded and shared {on <wday>|in the team chat|on the team drive}|the <tool_n> slides go on the team drive "
          "after <day>}{.|!}")
    return "{Training|Refresher}: <tool>, <day>"


def _thread_escalation(s: Scene, ppl: list[str]) -> str:
    a, b = ppl[0], ppl[1]
    s.add(a, "colleague", "{Flagging|Escalating} <cname> (<cid>) {to you|for a call back}, <f1>: {unhappy|frustrated|"
          "upset} about how long <ref_short> {has taken|is taking}{ and|;} {has asked for a manager|wants someone senior "
          "to call}{ — notes are on <ref>|, and everything is in the case notes from <wday>|}.")
    s.add(b, "manager", "{Thanks|Got it}{, <f0>|} — {I'll call <cfirst> {this afternoon|before <time2>|first thing "
          "tomorrow}|I'll pick <cname>'s case up {today|after my one-to-ones}}{.|!}")
    s.add(b, "manager", "{Spoke to|Called} <cfirst> {at <time2>|this afternoon|just now}{ —|:} {all calm now|sorted, and "
          "I've logged the feedback on <ref_short>|we agreed next steps and I've noted them on <ref>}{.|!}")
    return "{Escalation|Manager call-back}: <cname>"


def _mid_sentence(text: str, name: str) -> str:
    """`text` (a clause finished as a sentence) inside another sentence: its first letter in
    lower case, unless it opens with `name` written with a capital ("Tau2 Airline Desk shows
    nothing for it" stays as it is; "The CRM shows ..." becomes "the CRM shows ...")."""
    if name[:1].isupper() and text.startswith(name):
        return text
    return text[:1].lower() + text[1:]


def _thread_record(s: Scene, ppl: list[str]) -> str:
    """A colleague cannot make sense of a customer's record; another reads it for them (the
    record's own status, date and amount; nothing about a rule)."""
    a, b = ppl[0], ppl[1]
    s.slots["tool"] = s.pick(["the CRM", f"{C.brand_short(s.ctx.pack)} Desk", "the case search", "the document viewer"])
    dated = s.slots["rdate"] and s.slots["rdate"] not in s.slots["ref_short"]
    seen = [x for x in ("{the status shows <status>|it says <status>|it's showing as <status>}" if s.slots["status"] else "",
                        "{it shows <amount>|there's <amount> on it|the amount is <amount>}" if s.slots["amount"] else "",
                        "{it's dated <rdate>|the date on it is <rdate>}" if dated else "") if x]
    s.slots["seen"] = s.text(s.pick(seen)) if seen else s.text("{I can't find it in <tool>|<tool> shows nothing for it}")
    s.add(a, "colleague", "{Quick one|Can someone sanity-check something|Does anyone know|Help please}{ —|:} {<cname>|"
          "<cfirst>{ (<cid>)|}} {is asking|wants to know|called} about <ref_short>, and <seen_l>{ — {what does that mean|is "
          "that normal|where should I look}|, {is that right|anything I should tell them}}?",
          seen_l=_mid_sentence(s.slots["seen"], s.slots["tool"]))
    if s.rng.random() < 0.5:
        s.add(b, "colleague", "{Looking|Opening <ref_short>|One sec, pulling up <cfirst>'s file|Having a look at <cfirst>'s <kind>}, <f0>{.|...}")
    if s.slots["status"] and s.rng.random() < 0.6:
        s.add(b, "colleague", "{That's {fine|normal|expected}|Nothing wrong there|All looks right to me}{, <f0>|} — "
              "<status> {means it's {gone through|done on our side}|is what it should say{ for <ref_short>|}|is the "
              "final state{ for that <kind>|}}{; <cfirst> doesn't need to do anything|, so <cfirst> can relax|}{.|!}")
    else:
        s.add(b, "colleague", "{Check|Look} {under|in} {History|the <kind> tab|the activity list} in <tool>{, <f0>|} — "
              "{it's {all|} there{ with <rdate_or_wday> on it|}|{you'll|you should} see <ref_short> {listed|at the "
              "top}}{.|!}")
    s.add(a, "colleague", "<ty>{ — {found it|I'll {tell|call} <cfirst> {now|back}|that's what I needed for <cfirst>}|}"
          "{.|!}", fx=C.first(b), about="that")
    return "{Question on|Help reading|Anyone know} <ref_short>{ (<cname>)|}"


def _internal_scenarios() -> dict[str, Callable]:
    return {"record": _thread_record, "handoff": _thread_handoff, "shift": _thread_shift, "tool": _thread_tool, "meeting": _thread_meeting,
            "office": _thread_office, "starter": _thread_starter, "qa": _thread_qa, "volume": _thread_volume,
            "training": _thread_training, "escalation": _thread_escalation}


# How colleagues refer to a thread's subject once it is under way (follow-ups use it).
_ABOUT = {
    "handoff": ["{<cfirst>'s|<cname>'s} case", "<ref_short>", "the <cfirst> hand-off"],
    "shift": ["the <day> swap", "the <day> <shift> shift", "the rota for <day>"],
    "tool": ["the <tool_n> problem", "INC-<inc>", "the <tool_n> outage"],
    "meeting": ["the <meeting_n> move", "the new time for <meeting>", "<meeting> on <day>"],
    "office": ["<what>", "the <thing_n> problem", "the <thing_n>"],
    "starter": ["<newf>'s first week", "<newf>'s start", "the buddy plan for <newf>"],
    "qa": ["<cfirst>'s call", "<f1>'s call with <cfirst>", "the <cfirst> example"],
    "volume": ["the <vtopic>", "the spike in <vtopic>", "the macro for <vtopic>"],
    "training": ["the <tool_n> training", "the <tool_n> refresher", "<day>'s training"],
    "escalation": ["<cname>'s complaint", "the <cfirst> escalation", "<cfirst>'s call-back"],
    "record": ["<cfirst>'s <kind>", "<ref_short>", "the question on <ref_short>"],
}

# Follow-ups after a storyline ends: colleagues who were not in it chime in, someone asks to
# write it up or raise it, someone closes the loop. Each is one or two turns (a question and its
# answer come together, from two people: <fx> is who a turn speaks to), grounded in the thread's
# own slots (<about>, its people, customer, record, days), and offered only where it makes sense:
# nobody has "had the same thing" with a shift swap.
_FU_RULES: dict[str, list[str]] = {
    "catchup": ["{Late to this|Catching up on this|Only just seen this|Sorry, only catching up now|Scrolling back up|"
                "Back from {lunch|my break|the huddle|a callback}|Just off a long call}{, but|, and|, but fwiw| —}"],
    "when_past": ["on <wday>", "last week", "this morning", "before lunch", "yesterday afternoon", "at the start of my shift",
                  "on my <time2> call", "twice this week"],
    "later": ["after my <time2> call", "before I log off", "on <wday>", "first thing tomorrow", "once the queue calms down",
              "after the huddle", "before the <shift2> shift starts", "over lunch"],
    "wikidoc": ["handover doc", "team wiki", "<wday> huddle notes", "shift notes", "macro notes", "FAQ page on the wiki",
                "onboarding pack", "<shift2> shift notes", "known-issues page"],
    "ty": ["{Thanks|Thank you|Cheers|Many thanks|Thanks a lot|Much appreciated|Nice one|Ta|Legend|Lifesaver|You're a "
           "star|Appreciate it|Thanks a million|Great stuff|Top work}{ for {sorting|chasing|picking up|handling|jumping "
           "on|dealing with} <about>|}, <fx>"],
}
_FOLLOW: dict[str, list[list[str]]] = {
    "me_too": [["<catchup> {<about> did the same to me|I had the same with <cname2>'s <kind2> on <tool>|same here "
                "with <ref2> on <tool>} <when_past>, <fx>{.|!}"],
               ["<catchup> {I {think|reckon} <cfirst2> {ran into|hit} this too|<cfirst2> {called|wrote in} about "
                "something similar} <when_past>{ — I'll check {their notes|<ref2>}|, fwiw|}{.|!}"]],
    "me_too_office": [["<catchup> the {one|<thing_n>} {on three|by reception|in <room>|on the ground floor} {did the same|was "
                       "playing up|had the same problem} <when_past>{, <fx>|}{.|!}"]],
    "write_up": [["{Can we|Should we|Could someone|Worth it to} {add|put|write up} <about> {in|on} the <wikidoc>, <fx>?",
                  "{Good shout|Yes|Agreed|On it|Will do}, <fx> — {I'll {add|write} a line about <about> <later>|it's on the "
                  "<wikidoc> now|I've {added|pinned} it{ to the <wikidoc>|}}{, so the <shift2> shift {sees it|won't have "
                  "to ask}|, for whoever gets <cfirst2> next|}{.|!}"],
                 ["{I'll|Let me} {add|put} <about> {in|on} the <wikidoc> <later>, <fx> — {the <shift2> shift {will|might} "
                  "{hit|run into} {it|the same}|it'll save {the next person|whoever's on <wday>} a search|<cfirst2> "
                  "{might|could} call about {the same|something similar}}{.|!}"]],
    "raise": [["{Is <about>|Would <about> be} worth raising {with <lead>|at <meeting>|with the team lead|at the <wday> "
               "huddle}, <fx>?",
               "{Not for now|I don't think so|Only if it happens again|Maybe|Probably not yet}, <fx> — {I'll {raise|flag} "
               "it {with <lead>|at <meeting>} if it comes back|let's see how <wday> goes{ with <cfirst2>|}|it looks like "
               "a one-off{ for <cfirst>|}|<lead> {already knows|heard about it {this morning|on <wday>}}}{.|!}"],
              ["{Do we need|Should we open|Does this need} a ticket for <about>, <fx>?",
               "{Not yet|No|Yes, probably|Maybe}, <fx> — {I'll {log|open} one <later> if {it comes back|<cfirst2> "
               "calls again}|<lead> already {logged|raised} it{ <when_past>|}|{it's|that's} covered by the "
               "<meeting_n> notes}{.|!}"]],
    "tell": [["{Did anyone {tell|update}|Has anyone {told|updated}} <cfirst>{ about <ref_short>|}, <fx>?",
              "{Yes|Yep|Done|Sorted}, <fx> — {<cfirst> {has|got} an update {<when_past>|by email|by text}|I {emailed|"
              "called|messaged} <cfirst> {at <time2>|after lunch|this morning}{ about <ref_short>|}}{.|!}"]],
    "close": [["{Closing the loop{ on <about>|}|Last update from me{ on <about>|}|For the record|Wrapping up <about>}: "
               "{all sorted|nothing else needed|no further action|done and noted}{ on <ref_short>| here| for <cfirst>|}"
               "{, thanks <fx>|, thanks all|}{.|!}"]],
    "thanks": [["<ty>{!|.}"], ["<ty> — {I'll know for next time{ with <cfirst2>|}|that saves me a search {on "
                                  "<wday>|later}|that helps with <cfirst2>'s {one|case} too|made my <wday>}{.|!}"]],
    "coffee": [["{Who's|Anyone} {going|heading} {for coffee|to the kitchen|down for lunch|to the café over the road} "
                "{after <about>|before <meeting>|at <time2>}, <fx>{?| — I'm buying.| — it's your turn to pay.}",
                "{Me|Count me in|Yes please|Go on then}, <fx> — {after my <time2> call|once I've finished with "
                "<cfirst>'s {case|<kind>}|give me five minutes to finish <cfirst>'s notes|I'll meet you {by the "
                "lifts|in the kitchen|downstairs}{ after <meeting>|}}{.|!}"]],
}
# Which follow-ups fit which storyline ("thanks" and "close" speak to whoever did the work: the
# storyline's last speaker).
_FOLLOW_FOR = {
    "handoff": ["write_up", "tell", "close", "thanks", "raise"],
    "shift": ["thanks", "close", "coffee"],
    "tool": ["me_too", "write_up", "raise", "close", "thanks"],
    "meeting": ["thanks", "coffee", "close"],
    "office": ["me_too_office", "raise", "close", "thanks", "coffee"],
    "starter": ["thanks", "coffee", "write_up"],
    "qa": ["write_up", "tell", "thanks", "coffee"],
    "volume": ["me_too", "write_up", "raise", "close", "thanks"],
    "training": ["write_up", "thanks", "coffee", "close"],
    "escalation": ["me_too", "write_up", "tell", "raise", "close", "thanks"],
    "record": ["me_too", "write_up", "tell", "close", "thanks"],
}


def _follow_ups(s: Scene, name: str, people: list[str], n: int) -> None:
    """`n` follow-up exchanges after the storyline `name` (see `_FOLLOW`)."""
    s.slots["about"] = expand(s.pick(_ABOUT.get(name, ["that"])), s.rng, s.slots, RULES)
    kinds = list(_FOLLOW_FOR.get(name, ["thanks", "close"]))
    s.rng.shuffle(kinds)
    worker = s.turns[-1].who if s.turns else ""
    last = worker
    for kind in kinds[:n]:
        steps = s.pick(_FOLLOW[kind])
        who = s.pick([p for p in people if p != last] or people)
        to = worker if kind in ("thanks", "close") and worker and worker != who else \
            s.pick([p for p in people if p != who] or people)
        for i, t in enumerate(steps):
            if i:  # the answer comes from the one asked, to the one who asked
                who, to = to, who
            s.add(who, "colleague", t, fx=C.first(to))
            last = who


RULES.update(_FU_RULES)


def internal_thread(ctx: "RenderContext", rng: random.Random, *, people: Optional[list[str]] = None,
                    channel: str = "email", scenario: Optional[str] = None, avoid: Iterable[str] = (),
                    follow_ups: int = 0) -> Thread:
    """Staff traffic about routine work (see module doc). `people`: who may take part (the first
    is the starter); default three staff of the brand. `follow_ups`: extra replies after the
    storyline (people chiming in, documenting it, closing the loop)."""
    if not people:
        people = C.staff(ctx, rng, "manager", 1) + C.staff(ctx, rng, "agent", 2)
        rng.shuffle(people)
    people = list(people) + C.staff(ctx, rng, "agent", max(0, 3 - len(people)), exclude=tuple(people))
    s = Scene(ctx, rng, avoid, **_staff_slots(ctx, rng, people))
    scenarios = _internal_scenarios()
    name = scenario or rng.choice([n for n in sorted(scenarios) if channel != "meeting" or n != "record"])
    subject = s.text(scenarios[name](s, people))
    subject = subject[:1].upper() + subject[1:]
    if follow_ups:
        _follow_ups(s, name, people, follow_ups)
    turns = s.turns
    if channel == "email":
        turns = _as_staff_email(s, turns)
    elif channel == "team_chat":
        turns = [Turn(t.who, t.role, _casual(t.text, rng)) for t in turns]
    return Thread(subject, name, turns)


def _as_staff_email(s: Scene, turns: list[Turn]) -> list[Turn]:
    """Turns as internal e-mails: consecutive turns of one person are one message, with a
    salutation to the previous sender (or to everyone) and a first-name sign-off."""
    merged: list[Turn] = []
    for t in turns:
        if merged and merged[-1].who == t.who:
            merged[-1].text += " " + t.text
        else:
            merged.append(Turn(t.who, t.role, t.text))
    out = []
    for i, t in enumerate(merged):
        hi = s.text("{Hi|Hello|Hey} {all|team|everyone|folks}{,|}") if i == 0 else \
            s.text("{Hi|Hey|Hello} <to>{,|}", to=C.first(merged[i - 1].who))
        bye = s.text("{Thanks|Cheers|Best|Thanks all|Speak soon}{,|}") + "\n" + C.first(t.who)
        out.append(Turn(t.who, t.role, f"{hi}\n\n{t.text}\n\n{bye}"))
    return out


def _casual(text: str, rng: random.Random) -> str:
    """Team-chat register: sometimes all lower case, sometimes the final full stop dropped."""
    if rng.random() < 0.25:
        text = text[:1].lower() + text[1:]
    if rng.random() < 0.4 and text.endswith("."):
        text = text[:-1]
    return text


def meeting_item(ctx: "RenderContext", rng: random.Random, people: list[str], *,
                 scenario: Optional[str] = None, avoid: Iterable[str] = ()) -> list[Turn]:
    """One routine agenda item of a team meeting, as spoken turns."""
    t = internal_thread(ctx, rng, people=people, channel="meeting", scenario=scenario, avoid=avoid)
    lead = Scene(ctx, rng, avoid).text("{Next|Next up|Moving on|Okay, next one|One more thing}{,|:} {<subject>|"
                                       "a quick one on <subject>}.", subject=ctx.writer.lower_first(t.subject))  # names keep their capital
    turns = [Turn(people[0], "manager", lead)] + [Turn(x.who, x.role, _spoken(x.text, rng)) for x in t.turns]
    return turns


# How an agent sums up a customer's request in a ticket's title (the customer's own subject line
# is for e-mail): the customer's name and their record, in the clipped style of a queue.
_TICKET_SUMMARY = {
    "receipt": "{Receipt {resend|request|copy}|Invoice request} {for|—} <cname>{, <ref_short>| (<ref_short>)|}",
    "status": "{<cname> chasing <ref_short>|Status update for <cname>{ on <ref_short>|}|<cname>: where is <ref_short>}",
    "contact": "{<Contact_noun> update|New <contact_noun>|Change <contact_noun>} {—|for} <cname>",
    "charge": "{<cname> querying <amount>{ ({<rmonth_or_month>|<ref_short>})|}|Unrecognised <amount> — <cname>|Charge "
              "query: <amount>, <cname>}",
    "details": "{<cname> wants <ref_short> {read back|confirmed}|Confirm details of <ref_short> for <cname>|Details check "
               "— <cname>, <ref_short>}",
    "login": "{<cname> {locked out|can't sign in}{ <since_ago>| on the app| on the website|}|Sign-in help for "
             "<cname>|Password reset — <cname>}",
    "name": "{Surname typo on <ref_short> — <cname>|<cname>: fix spelling <wrong> → <clast>{ on <ref_short>|}|Name "
            "correction for <cname>}",
    "payment": "{New card on file for <cname>|Replace <old> — <cname>|<cname>: update payment card}",
    "compliment": "{Compliment from <cname> for <colleague>|Kind words for <colleague> from <cname>|Thank-you note "
                  "from <cname>{ for <colleague_full>|}}",
    "callback": "{Callback for <cname>{ on <cb>|} re <ref_short>|Ring <cname> back{ on <cb>|}{ about <ref_short>|}|Call "
                "back <cname>{ — <ref_short>|}}",
    "notifications": "{<cname> wants fewer {texts|emails|notifications}|Turn off {reminders|marketing} for <cname>|"
                     "Notification settings — <cname>}",
    "copy": "{<cname> needs <doc> <ref_short>|Send <doc> <ref_short> to <cname>|Paperwork request — <cname>{, "
            "<ref_short>|}}",
}


def ticket(ctx: "RenderContext", rng: random.Random, *, people: Optional[list[str]] = None,
           avoid: Iterable[str] = ()) -> Ticket:
    """A routine helpdesk / issue-tracker record: a customer request worked by an agent, or an
    internal task, with its comments."""
    if rng.random() < 0.55:
        s, cust, rec, agent = _customer_scene(ctx, rng, "ticket", None, people[0] if people else None, None, avoid)
        ex = _exchange(s, cust, rec, agent, "ticket", None)
        s.slots.setdefault("contact_noun", s.slots.get("noun", "contact details"))
        s.slots["Contact_noun"] = s.slots["contact_noun"][:1].upper() + s.slots["contact_noun"][1:]
        summary = s.text(_TICKET_SUMMARY[ex.scenario]) if ex.scenario in _TICKET_SUMMARY else ex.subject
        first, rest = ex.turns[0].text, ex.turns[1:]
        desc = f"Customer {ex.customer.name}{f' ({ex.customer.id})' if ex.customer.id else ''} wrote: \u201c{first}\u201d"
        comments = [Turn(t.who, t.role, t.text if t.role != "customer" else f"Customer replied: \u201c{t.text}\u201d")
                    for t in rest if t.role != "system"]
        return Ticket(summary, "Customer request", "Resolved", ex.agent, ex.agent, desc, ex.scenario, comments)
    if people:  # three different people: the one who raises it is not the one who picks it up
        people = list(dict.fromkeys(people))
    th = internal_thread(ctx, rng, people=people, channel="ticket", avoid=avoid)
    status = "Done" if th.scenario in ("tool", "office", "handoff", "escalation", "shift") else rng.choice(["Open", "Done"])
    return Ticket(th.subject, rng.choice(["Task", "Internal request", "Incident"]) if th.scenario in ("tool", "office")
                  else "Task", status, th.turns[0].who, th.turns[-1].who, th.turns[0].text, th.scenario, th.turns[1:])


@dataclass
class CaseNote:
    category: str
    status: str
    text: str
    customer: Customer
    record: Optional[Rec]
    scenario: str


# A case log's resolution note per scenario: (category, notes when the case is closed, notes
# when it is still open). Written in the clipped style of a CRM note, every one grounded in
# the customer's record and with several choice points.
_NOTE_SUBJ = "{Cust|Customer|<cfirst>|<cname>}"
_CASE_NOTES: dict[str, tuple[str, list[str], list[str]]] = {
    "receipt": ("Billing", [
        _NOTE_SUBJ + " {asked for|requested|needed} {a receipt|an itemised receipt|a copy of the receipt|an invoice} for "
        "<ref>{ (<amount>)|}{, {for|as it's for} {an expense claim|their accountant|work|their records}|}; {re-sent|"
        "emailed|sent} to <email>{ and confirmed received| while on the line|, told them about the download on <website>|}.",
        "{Receipt|Invoice|Copy of the receipt} for <ref>{ (<amount>)|} {re-sent|emailed} to <email>{ at "
        "<cfirst>'s request|; {original|first one} {never arrived|went to an old address|was deleted}|}."], [
        _NOTE_SUBJ + " says the receipt for <ref> {never arrived|is blank}; {re-sent|sent again} to <email>, {waiting|"
        "will check} {for confirmation|<soon>|on <wday>}."]),
    "status": ("General", [
        _NOTE_SUBJ + " {wanted|asked for|chased} an update on <ref>{ after no email since <rdate_or_wday>|}; {status is|"
        "showing as|it's} <status>{, nothing outstanding|, customer happy|, no action needed|}.",
        "{Status check|Update request} on <ref> {from|for} <cfirst>{: |; }{<status>|shows <status>}{, {explained|"
        "confirmed} {by {phone|chat}|in reply}|}."], [
        _NOTE_SUBJ + " chasing <ref>{ (<status>)|}; {flagged|noted} for {the team|follow-up} and {promised|will send} an "
        "update by <wday>."]),
    "contact": ("Account", [
        _NOTE_SUBJ + " {updated|changed} {the|their} <contact_field> on the {account|profile}{ after {verifying|checking} "
        "<contact_kind>| ({verified by <contact_kind>})|}; {confirmation sent|new details read back|done while on the "
        "line}.",
        "<Contact_field> on <cname>'s {profile|account} {changed|updated}{ — {moved|new job|old one closed}|}; "
        "{verified via <contact_kind>|ID checked first}{, <ref_short> updated too|}."], [
        _NOTE_SUBJ + " {wants|asked} to change the <contact_field>; {verification pending|waiting for the "
        "confirmation link to be clicked|sent a verification code to <contact>}."]),
    "charge": ("Billing", [
        _NOTE_SUBJ + " {queried|didn't recognise|asked about} <amount>{ on <pay>|}{ from <rdate_or_wday>| in "
        "<rmonth_or_month>|}; {it's|matched it to|explained it is} the payment for <ref>{, customer {agreed|remembered}|, "
        "no dispute raised|}.",
        "{Query on|Unrecognised} charge of <amount>{ (<rmonth_or_month>)|}: {matched to|belongs to|is} <ref>{; <cfirst> "
        "{happy|satisfied} with that|; closed, no dispute|}."], [
        _NOTE_SUBJ + " {disputes|queries} <amount>{ on <pay>|} for <ref>; {asked the payment team to confirm|waiting "
        "for the processor's report|to review with a team lead on <wday>}."]),
    "details": ("General", [
        _NOTE_SUBJ + " {asked us to confirm|wanted to double-check|needed} the details of <ref>{ for a form| for "
        "their <rel>| before <wday>|}; {read back|confirmed|went through} {and all matched|over {chat|the phone}|, "
        "nothing to change}.",
        "{Details|Record details|The details} of <ref> {read back to|confirmed with|checked with} <cfirst>{, all "
        "correct|; no changes|}."], []),
    "login": ("Technical", [
        _NOTE_SUBJ + " {couldn't|unable to} {log in|sign in}{ on <website>| to the app|} {<since_ago>|}; {sent|issued} "
        "a {reset link|one-time code|new sign-in link} to <contact>{, confirmed working|, customer back in|}.",
        "{Sign-in|Log-in|Password} {trouble|issue|problem} for <cname>{ (<contact>)|}: {reset link|code} {sent|"
        "issued}{ and used|, works now|}."], [
        _NOTE_SUBJ + " still can't {log in|sign in} after {a reset|the reset link}{ (<contact>)|}; {passed to|raised "
        "with} {tech support|the app team} {on <wday>|today}."]),
    "name": ("Account", [
        _NOTE_SUBJ + " {reported|flagged} {a typo in|the wrong spelling of} {their|the} {surname|last name} on <ref> "
        "(<wrong>); {corrected|fixed|changed} to <clast>{ after ID check| and re-issued the confirmation|}.",
        "{Surname|Name} on <ref> {corrected|fixed} from <wrong> to <clast>{ at <cfirst>'s request|; verified "
        "{first|via <contact_kind>}|}."], []),
    "payment": ("Billing", [
        _NOTE_SUBJ + " {replaced|updated} <old> with a new card{ via the secure link| (link sent to <email>)|}{; "
        "old card removed|; nothing due on <ref_short>|}.",
        "{Card on file|Payment card} {updated|replaced} for <cname>{ — <old> {expired|lost|reissued by the bank}|}"
        "{, secure link used|}."], [
        _NOTE_SUBJ + " {needs|wants} to replace <old>; secure link sent to <email>, {not used yet|waiting for "
        "them to complete it}."]),
    "compliment": ("Feedback", [
        _NOTE_SUBJ + " {called|wrote in|chatted} to thank <colleague_full> for {help|their help} with <ref_short>"
        "{ <ago>|}; {passed on|forwarded} to <colleague>{'s team lead| and the team lead|}.",
        "{Compliment|Thank-you note|Positive feedback} for <colleague_full>{ re <ref>| from <cname>}{; shared "
        "{with the team|at the huddle|with their lead}|}."], []),
    "callback": ("General", [
        _NOTE_SUBJ + " {asked for|requested} a callback about <ref_short>{ on <cb>|}; {called|rang} {back|<phone>} "
        "{and sorted it|as agreed|after lunch}{, no further action|}.",
        "Callback {done|made} to <cname>{ on <phone>|} about <ref>{; {query answered|all resolved}|}."], [
        _NOTE_SUBJ + " {wants|asked for} a call back about <ref_short> on <cb>{ after lunch| afternoon|}; "
        "{booked|scheduled}{ — <phone>|}, {no answer yet|voicemail left once|will retry}."]),
    "notifications": ("Account", [
        _NOTE_SUBJ + " {asked to stop|wanted fewer|was getting too many} {marketing|reminder|update} {texts|emails|"
        "notifications}{ about <ref_short>|}; {switched off|opted out}{, confirmations still go to <email>|}.",
        "{Notification settings|Messages|Reminders} for <cname> {changed|reduced}{ at their request|}{; receipts "
        "still {sent|go} to <email>|}."], []),
    "copy": ("General", [
        _NOTE_SUBJ + " {needed|asked for|requested} {a copy|a PDF|paperwork} of <ref>{ for a {visa|mortgage|"
        "insurance} application| for their <rel>| by <wday>|}; emailed to <email>.",
        "{Copy|PDF|Summary} of <ref> {sent|emailed} to <email>{ for <cfirst>'s records| at their request|}."], []),
}


def case_note(ctx: "RenderContext", rng: random.Random, *, customer: Optional[Customer] = None,
              avoid: Iterable[str] = ()) -> str:
    """One line of a case log, closed ("Cust asked for a receipt for order #JR4672073
    ($234.50); re-sent to amara.lee@example.com."); see `case_entry` for the whole row."""
    return case_entry(ctx, rng, customer=customer, open_ok=False, avoid=avoid).text


def case_entry(ctx: "RenderContext", rng: random.Random, *, customer: Optional[Customer] = None,
               open_ok: bool = True, avoid: Iterable[str] = ()) -> CaseNote:
    """One row of a case log: a category, a status ("Open"/"Pending" only when `open_ok`) and
    the agent's resolution note, about one of the customer's own records."""
    s, cust, rec, _agent = _customer_scene(ctx, rng, "ticket", customer, None, None, avoid)
    name = rng.choice([n for n in sorted(_CASE_NOTES) if _suits(n, cust, rec)])
    cat, done, pending = _CASE_NOTES[name]
    field_ = s.pick(["email address", "phone number", "postal address"])
    s.slots.update({"contact_field": field_, "Contact_field": field_.capitalize(), "wrong": _misspelt(cust.last, rng),
                    "old": s.slots.get("pay") or "the old card", "cb": s.pick(_WEEKDAYS),
                    "phone": cust.phone or "the number on file"})
    if rec is None:
        s.slots.update({"ref": "the account", "ref_short": "the account"})
    if pending and open_ok and rng.random() < 0.4 and (name != "status" or rec is not None and rec.waiting):
        return CaseNote(cat, rng.choice(["Open", "Pending"]), s.text(s.pick(pending)), cust, rec, name)
    status = "Closed" if cat in ("Feedback", "General") and rng.random() < 0.5 else "Resolved"
    return CaseNote(cat, status, s.text(s.pick(done)), cust, rec, name)


# What a repeat request was about, by the first case's storyline (a duplicate case names it).
_DUP_ABOUT = {"receipt": "the receipt for <ref_short>", "status": "<ref_short>", "contact": "changing the <contact_field>",
              "charge": "{the <amount> charge|the charge on <ref_short>}", "details": "the details of <ref_short>",
              "login": "{signing in|the sign-in problem|the reset link}", "name": "the spelling of <clast>",
              "payment": "{the new card|replacing <old>}", "compliment": "{the thank-you|their compliment}",
              "callback": "{a callback|the callback about <ref_short>}",
              "notifications": "{the notifications|too many messages}", "copy": "{a copy of <ref_short>|the paperwork}"}


def duplicate_note(ctx: "RenderContext", rng: random.Random, first: CaseNote, *, avoid: Iterable[str] = ()) -> str:
    """The note of a case closed as a duplicate of `first` (same customer, same request):
    "{dup}" stands for the first case's id, filled in by the ledger once ids are known."""
    s, cust, rec, _agent = _customer_scene(ctx, rng, "ticket", first.customer, None, first.record, avoid)
    field_ = s.pick(["email address", "phone number", "postal address"])
    s.slots.update({"contact_field": field_, "old": s.slots.get("pay") or "the old card", "dup": "{dup}"})
    if rec is None:
        s.slots.update({"ref": "the account", "ref_short": "the account"})
    s.slots["about"] = expand(_DUP_ABOUT.get(first.scenario, "the same thing"), rng, s.slots, RULES)
    return s.text("{Duplicate of|Same request as|Already raised in|Dupe of|Merged into|See} <dup>{:|;| —} {<cfirst>|<cname>|"
                  "customer|cust} {wrote in|called|chatted in|emailed|rang} {again|a second time|before the first one was "
                  "answered|while <dup> was still open} about <about>{; merged and closed|, closing this one|; merged|; no "
                  "new info| — answered there|}.")
