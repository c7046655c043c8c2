"""Routine records that carry no policy fact: helpdesk tickets with their comments (`ticket`)
and the lines of a case log (`case_note`, `case_entry`, `duplicate_note`), drawn from the
seed database like the rest of the haystack (`transforms.haystack`)."""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Optional

from .grammar import expand
from .haystack import RULES, WEEKDAYS, Ticket, Turn, customer_scene, misspelt, run_exchange, suits
from .haystack_staff import internal_thread
from .situations import Customer, Rec

if TYPE_CHECKING:  # pragma: no cover
    from .base import RenderContext


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
        s, cust, rec, agent = customer_scene(ctx, rng, "ticket", None, people[0] if people else None, None, avoid)
        ex = run_exchange(s, cust, rec, agent, "ticket", None)
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
    s, cust, rec, _agent = customer_scene(ctx, rng, "ticket", customer, None, None, avoid)
    name = rng.choice([n for n in sorted(_CASE_NOTES) if suits(n, cust, rec)])
    cat, done, pending = _CASE_NOTES[name]
    field_ = s.pick(["email address", "phone number", "postal address"])
    s.slots.update({"contact_field": field_, "Contact_field": field_.capitalize(), "wrong": misspelt(cust.last, rng),
                    "old": s.slots.get("pay") or "the old card", "cb": s.pick(WEEKDAYS),
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
    s, cust, rec, _agent = customer_scene(ctx, rng, "ticket", first.customer, None, first.record, avoid)
    field_ = s.pick(["email address", "phone number", "postal address"])
    s.slots.update({"contact_field": field_, "old": s.slots.get("pay") or "the old card", "dup": "{dup}"})
    if rec is None:
        s.slots.update({"ref": "the account", "ref_short": "the account"})
    s.slots["about"] = expand(_DUP_ABOUT.get(first.scenario, "the same thing"), rng, s.slots, RULES)
    return s.text("{Duplicate of|Same request as|Already raised in|Dupe of|Merged into|See} <dup>{:|;| —} {<cfirst>|<cname>|"
                  "customer|cust} {wrote in|called|chatted in|emailed|rang} {again|a second time|before the first one was "
                  "answered|while <dup> was still open} about <about>{; merged and closed|, closing this one|; merged|; no "
                  "new info| — answered there|}.")
