"""Support chat transcript (.txt): the case header a helpdesk prints (case id, channel,
customer, agent, opened/closed times), then timestamped turns. The customer asks about each
fact (and may voice a wrong belief first), the agent answers with the authoritative
statement; greetings, look-ups and a closing frame the facts."""
from __future__ import annotations

import datetime as dt
import random
import re
from pathlib import Path

from transforms import clock as CK, common as C, haystack as H, headings, records as RC
from transforms.base import ExtractContext, Extraction, RenderContext, Transformer
from transforms.extract.text import extract_text_file
from transforms.grammar import expand as say_
from transforms.plan import ArtifactSpec
from transforms.registry import register


_CHANNELS = ["Web chat", "In-app chat", "WhatsApp Business", "Web chat (mobile)", "Messenger"]
_SUPERSEDED_LEADS = ["I can see an older note on your file: ", "Our knowledge base still has this entry: ",
                     "There's an archived article that says: "]
_ORPHAN_REPLY = ["I'll double-check that one with the policy team and update the case.",
                 "Let me confirm that with my supervisor; I've added it to the case notes."]
_SURVEY = ["Post-chat survey: 5/5 - \"Quick and clear.\"", "Post-chat survey: 4/5",
           "Post-chat survey: not answered", "Post-chat survey: 5/5"]


class _Clock:
    def __init__(self, start: dt.datetime, rng: random.Random):
        self.t = start
        self.rng = rng

    def tick(self, text: str = "") -> dt.datetime:
        self.t += dt.timedelta(seconds=self.rng.randint(6, 25) + len(text) // self.rng.choice((3, 4, 5)))
        return self.t


@register
class ChatTranscript(Transformer):
    family = "conversations"
    kind = "chat_transcript"
    ext = ".txt"
    modality = "text"
    max_facts = 4
    weight = 3.0
    description = "Support chat/case transcript: case header and timestamped customer/agent turns."

    def render(self, spec: ArtifactSpec, ctx: RenderContext, out: Path) -> None:
        rng = spec.rng("chat")
        w, pack = ctx.writer, ctx.pack
        its, orphans = C.items(spec, ctx)
        day = CK.spec_date(spec)
        agent = RC.staff(ctx, rng, "agent", 1)[0]
        talk = C.speaker(ctx, rng, name=agent)
        cust = RC.Person(talk.customer.name, talk.customer.id) if talk.customer else RC.pick_customer(ctx, rng)
        start = CK.office_time(pack, day, rng, 8, 17)
        clock = _Clock(start, rng)
        channel = rng.choice(_CHANNELS)
        case_id = f"{RC.id_prefix(pack, 'case', 'ticket')}-{day:%y%m%d}-{rng.randint(1000, 9999)}"
        rec = talk.record
        ref, ref_kind = (rec.id, rec.kind) if rec is not None and rec.id else RC.record_ref(ctx, rng, cust)
        cust_email = (talk.customer.email if talk.customer and talk.customer.email
                      else w.email(cust.name, internal=False))
        thing = f"{ref_kind} {ref}"
        ex_cust = talk.customer or H.customer_of(ctx, cust.name, cust.ref, cust_email)  # the routine talk is theirs
        if rec is not None and (rec.internal or rec.detail):  # customers name a statement by its account, not its id
            thing = re.sub(r"^my ", "the ", H.record_name(rec, rng))
        avoid = [d.text for d in spec.distractors]

        turns: list[tuple[dt.datetime, str, str]] = []

        def say(who: str, text: str) -> None:
            turns.append((clock.tick(text), who, text))

        turns.append((clock.t, "System", f"{cust.name} joined the chat."))
        say("System", f"{agent} (Agent) joined the chat.")
        extra = 0
        if not its:
            ex = H.customer_exchange(ctx, rng, channel="chat", customer=ex_cust, record=rec, agent=agent,
                                     avoid=avoid)
            body, ritual = (ex.turns[:-3], ex.turns[-3:]) if len(ex.turns) > 4 else (ex.turns, [])
            for t in body:
                say(cust.name if t.role == "customer" else agent, t.text)
        else:
            say(agent, w.greeting(rng, "agent", name=cust.name, agent=agent))
            say(cust.name, w.greeting(rng, "customer", name=cust.name, thing=thing))
            say(agent, w.filler(rng, "agent", name=cust.name, thing=thing)[0])
            # most chats that touch a rule start with something routine about the customer's own
            # record (the planner's `size` is the chat's length in turns)
            extra = max(0, (spec.size or 0) - 5 - 3 * len(its))
            if extra >= 2:
                ex = H.customer_exchange(ctx, rng, channel="chat", customer=ex_cust, record=rec, agent=agent,
                                         avoid=avoid)
                # its business only: no second greeting after "Checking ... now", no goodbye before the questions
                body = [t for t in ex.business if t.role in ("customer", "agent")][:extra]
                for t in body:
                    say(cust.name if t.role == "customer" else agent, t.text)
        for n, it in enumerate(its):
            if n or extra >= 2:
                q = C.lead_in(say_(rng.choice(["One more thing{, <agent>|} — ", "Also, ", "While I have you{, <agent>|}: ",
                                               "Oh, and ", "Another question{ about <thing>|}: ",
                                               "Before you go{, <agent>|}: ", "Something else{ on <thing>|}: ", ""]),
                                   rng, {"agent": RC.first(agent), "thing": thing}),
                              w.question(it.fact, rng, talk.customer, rec if rng.random() < 0.5 else None))
            else:
                q = w.question(it.fact, rng, talk.customer, rec)
            say(cust.name, q)
            wrong = False
            for d in it.wrong:
                say(cust.name, C.hedged(ctx, it.fact, d, rng, role="customer", register="chat", context=talk))
                wrong = True
            if rng.random() < 0.4:
                say(agent, w.filler(rng, "agent", name=cust.name, thing=thing)[0])
            for d in it.superseded:
                say(agent, rng.choice(_SUPERSEDED_LEADS) + C.hedged(ctx, it.fact, d, rng, on=CK.earlier_day(d, day, rng),
                                                                    register="chat", context=talk))
                wrong = True
            say(agent, C.answer(ctx, it, rng, q, after_wrong=wrong, register="chat", context=talk))
            if rng.random() < 0.6:
                say(cust.name, w.closing(rng, "customer", agent=agent, thing=thing))
        for fact, d in orphans:
            if d.role == "superseded":
                say(agent, rng.choice(_SUPERSEDED_LEADS) + C.hedged(ctx, fact, d, rng, on=CK.earlier_day(d, day, rng),
                                                                    register="chat", context=talk))
            else:
                say(cust.name, C.hedged(ctx, fact, d, rng, role="customer", register="chat", context=talk))
            say(agent, rng.choice(_ORPHAN_REPLY))
        if its:
            say(cust.name, w.closing(rng, "customer", agent=agent, thing=thing))
            say(agent, w.closing(rng, "agent", name=cust.name, thing=thing))
        else:
            for t in ritual:
                say(cust.name if t.role == "customer" else agent, t.text)
        say("System", f"{agent} ended the chat. Transcript sent to {cust_email}.")

        queue = headings.section_of(its[0].fact) if its else rng.choice(["Account", "General enquiries", "Billing"])
        tags = sorted({RC.slug(headings.section_of(i.fact), 40) for i in its}) or ["general"]
        tz = CK.tz_label(start)
        head = [
            f"{pack.brand.company} - Customer Support",
            "CHAT TRANSCRIPT",
            "",
            f"Case ID:   {case_id}",
            f"Channel:   {channel}",
            f"Customer:  {cust.name} ({cust.ref or 'guest'}) <{cust_email}>",
            f"Agent:     {agent}",
            f"Queue:     {queue}",
            f"Opened:    {start:%Y-%m-%d %H:%M:%S} {tz}",
            f"Closed:    {turns[-1][0]:%Y-%m-%d %H:%M:%S} {tz}",
            "Status:    Resolved",
            f"Tags:      {', '.join(tags)}",
            "-" * 64,
            "",
        ]
        body = [f"[{t:%H:%M:%S}] {who}: {text}" for t, who, text in turns]
        tail = ["", "-" * 64, rng.choice(_SURVEY),
                f"Exported from {RC.brand_short(pack)} Helpdesk. Internal use only."]
        out.write_text("\n".join(head + body + tail) + "\n", encoding="utf-8")

    def extract(self, path: Path, ctx: ExtractContext) -> Extraction:
        return Extraction(text=extract_text_file(path), extractor="text")
