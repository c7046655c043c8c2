"""Routine staff traffic that carries no policy fact: internal threads (`internal_thread`:
case hand-offs, shift cover, tooling trouble, meetings moving, training, office logistics,
metrics) by e-mail or team chat, and the items of a team meeting (`meeting_item`). Part of
the haystack (`transforms.haystack`): people and records come from the seed database, and
each thread follows one storyline."""
from __future__ import annotations

import random
import re
from typing import TYPE_CHECKING, Callable, Iterable, Optional

from . import records as RC
from .grammar import expand
from .haystack import RELATIONS, RULES, WEEKDAYS, Scene, Thread, Turn, as_spoken, brand_customer, rec_slots
from .situations import Rec, view

if TYPE_CHECKING:  # pragma: no cover
    from .base import RenderContext


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
    cust = v.customer(rng, lambda c: bool(c.records)) or brand_customer(ctx, rng)
    rec = rng.choice(cust.records) if cust.records else None
    other = v.customer(rng, lambda c: bool(c.records) and c.name != cust.name) or cust
    rec2 = rng.choice(other.records) if other.records else None
    slots = {"cname": cust.name, "cfirst": cust.first, "clast": cust.last, "rel": rng.choice(RELATIONS),
             "day": rng.choice(WEEKDAYS), "day2": rng.choice(WEEKDAYS),
             "tool": rng.choice(_TOOLS).replace("<brand>", RC.brand_short(ctx.pack)),
             "symptom": rng.choice(_SYMPTOMS), "symptom2": rng.choice(_SYMPTOMS2), "reason": rng.choice(_REASONS),
             "room": rng.choice(_ROOMS), "meeting": rng.choice(_MEETINGS),
             "time": rng.choice(["9:30", "10", "11", "noon", "1:30", "2", "3", "3:30", "4"]),
             "time2": rng.choice(["10:30", "11:30", "2:30", "4:30", "5", "9:45", "1:15", "3:45"]),
             "vtopic": _volume_topic(v, rng, rec),
             "email": cust.email, "cid": cust.id, "route": rec.route if rec else "",
             "cname2": other.name, "cfirst2": other.first,
             "ref2": rec_slots(rec2, other, rng)["ref_short"] if rec2 is not None else f"{other.first}'s account",
             "kind2": rec2.kind if rec2 is not None else "account",
             "lead": RC.first(RC.staff(ctx, rng, "manager", 1, exclude=tuple(people))[0]),
             "shift2": rng.choice(["late", "early", "weekend", "evening", "Saturday", "mid"])}
    slots["tool_n"] = re.sub(r"^the ", "", slots["tool"])  # "the <tool_n> problem"
    slots["meeting_n"] = re.sub(r"^the ", "", slots["meeting"])
    slots.update(rec_slots(rec, cust, rng))
    for i, p in enumerate(people):
        slots[f"p{i}"] = p
        slots[f"f{i}"] = RC.first(p)
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
    s.slots["tool"] = s.pick(["the CRM", f"{RC.brand_short(s.ctx.pack)} Desk", "the case search", "the document viewer"])
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
          "{.|!}", fx=RC.first(b), about="that")
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
            s.add(who, "colleague", t, fx=RC.first(to))
            last = who


RULES.update(_FU_RULES)


def internal_thread(ctx: "RenderContext", rng: random.Random, *, people: Optional[list[str]] = None,
                    channel: str = "email", scenario: Optional[str] = None, avoid: Iterable[str] = (),
                    follow_ups: int = 0) -> Thread:
    """Staff traffic about routine work (see module doc). `people`: who may take part (the first
    is the starter); default three staff of the brand. `follow_ups`: extra replies after the
    storyline (people chiming in, documenting it, closing the loop)."""
    if not people:
        people = RC.staff(ctx, rng, "manager", 1) + RC.staff(ctx, rng, "agent", 2)
        rng.shuffle(people)
    people = list(people) + RC.staff(ctx, rng, "agent", max(0, 3 - len(people)), exclude=tuple(people))
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
            s.text("{Hi|Hey|Hello} <to>{,|}", to=RC.first(merged[i - 1].who))
        bye = s.text("{Thanks|Cheers|Best|Thanks all|Speak soon}{,|}") + "\n" + RC.first(t.who)
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
    turns = [Turn(people[0], "manager", lead)] + [Turn(x.who, x.role, as_spoken(x.text, rng)) for x in t.turns]
    return turns
