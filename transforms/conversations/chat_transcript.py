"""Support chat transcript (.txt): the case header a helpdesk prints (case id, channel,
customer, agent, opened/closed times), then timestamped turns. The customer asks about each
fact (and may voice a wrong belief first), the agent answers with the authoritative
statement; greetings, look-ups and a closing frame the facts."""
from __future__ import annotations

import datetime as dt
import random
from pathlib import Path

from transforms.base import ArtifactSpec, ExtractContext, Extraction, RenderContext, Transformer
from transforms.extract.text import extract_text_file
from transforms.registry import register

from transforms import common as C
from transforms.smalltalk import SUPPORT_EXCHANGES

_CHANNELS = ["Web chat", "In-app chat", "WhatsApp Business", "Web chat (mobile)", "Messenger"]
_SUPERSEDED_LEADS = ["I can see an older note on your file: ", "Our knowledge base still has this entry: ",
                     "There's an archived article that says: "]
_ORPHAN_REPLY = ["I'll double-check that one with the policy team and update the case.",
                 "Let me confirm that with my supervisor; I've added it to the case notes."]
_ASK_REF = ["Could you share your {thing} reference so I can pull up the details?",
            "Can I get the {thing} number, please?", "Do you have your {thing} reference handy?"]
_FOUND = ["Thanks, I have it open now.", "Got it, I can see your record.", "Perfect, that's pulled up."]
_ACK = ["Okay, got it.", "Ah, okay. Good to know.", "Right, that makes sense.", "Thanks, that's clear.",
        "Oh, I didn't realise that.", "Okay."]
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
        day = C.spec_date(spec)
        cust = C.pick_customer(ctx, rng)
        agent = C.staff(ctx, rng, "agent", 1)[0]
        start = C.office_time(pack, day, rng, 8, 17)
        clock = _Clock(start, rng)
        channel = rng.choice(_CHANNELS)
        case_id = f"{C.id_prefix(pack, 'case', 'ticket')}-{day:%y%m%d}-{rng.randint(1000, 9999)}"
        ref, ref_kind = C.record_ref(ctx, rng, cust)
        cust_email = w.email(cust.name, internal=False)
        subs = dict(company=pack.brand.company, product=C.product(ctx, rng), ref=ref, email=cust_email,
                    website=pack.brand.website or pack.brand.email_domain, phone=pack.brand.phone or "our hotline",
                    first=C.first(cust.name))

        turns: list[tuple[dt.datetime, str, str]] = []

        def say(who: str, text: str) -> None:
            turns.append((clock.tick(text), who, text))

        turns.append((clock.t, "System", f"{cust.name} joined the chat."))
        say("System", f"{agent} (Agent) joined the chat.")
        say(agent, w.greeting(rng, "agent", name=cust.name, agent=agent))
        say(cust.name, w.greeting(rng, "customer"))
        say(agent, rng.choice(_ASK_REF).format(thing=ref_kind))
        say(cust.name, f"Sure, it's {ref}." if rng.random() < 0.6 else f"My reference is {ref}.")
        say(agent, rng.choice(_FOUND))

        if not its:
            ex = rng.choice(SUPPORT_EXCHANGES)
            for i, line in enumerate(ex):
                say(cust.name if i % 2 == 0 else agent, line.format(**subs))
        for n, it in enumerate(its):
            if n and rng.random() < 0.5:
                say(cust.name, rng.choice(["One more thing.", "Also, while I have you:", "Another question."]))
            say(cust.name, w.question(it.fact, rng))
            wrong = False
            for d in it.wrong:
                say(cust.name, C.hedged(ctx, it.fact, d, rng, role="customer"))
                wrong = True
            if rng.random() < 0.4:
                say(agent, w.filler(rng, "agent")[0])
            for d in it.superseded:
                say(agent, rng.choice(_SUPERSEDED_LEADS) + C.hedged(ctx, it.fact, d, rng, on=C.earlier_day(d, day, rng)))
                wrong = True
            say(agent, C.authoritative(ctx, it, rng, after_wrong=wrong))
            if rng.random() < 0.6:
                say(cust.name, rng.choice(_ACK))
        for fact, d in orphans:
            if d.role == "superseded":
                say(agent, rng.choice(_SUPERSEDED_LEADS) + C.hedged(ctx, fact, d, rng, on=C.earlier_day(d, day, rng)))
            else:
                say(cust.name, C.hedged(ctx, fact, d, rng, role="customer"))
            say(agent, rng.choice(_ORPHAN_REPLY))
        say(cust.name, w.closing(rng, "customer"))
        say(agent, w.closing(rng, "agent"))
        say("System", f"{agent} ended the chat. Transcript sent to {cust_email}.")

        queue = C.section_of(its[0].fact) if its else rng.choice(["Account", "General enquiries", "Billing"])
        tags = sorted({C.slug(C.section_of(i.fact), 40) for i in its}) or ["general"]
        tz = C.tz_label(start)
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
                f"Exported from {C.brand_short(pack)} Helpdesk. Internal use only."]
        out.write_text("\n".join(head + body + tail) + "\n", encoding="utf-8")

    def extract(self, path: Path, ctx: ExtractContext) -> Extraction:
        return Extraction(text=extract_text_file(path), extractor="text")
