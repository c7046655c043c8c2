"""Meeting transcript (.vtt): the WebVTT captions a meeting tool saves for a recorded working
session: header, a NOTE with title, date and participants, then numbered cues with
HH:MM:SS.mmm timings and `<v Speaker>` voice tags. Staff raise questions (and sometimes a
wrong or old value), the policy owner states the rule; small talk and actions around it. A
session lasts the planner's `size` in minutes (10 to 25): the rest of the agenda is routine
team business (`transforms.haystack.meeting_item`)."""
from __future__ import annotations

from pathlib import Path

from transforms import clock as CK, common as C, haystack_staff as HS, headings, records as RC
from transforms.base import ExtractContext, Extraction, RenderContext, Transformer
from transforms.extract.text import extract_vtt
from transforms.grammar import say
from transforms.plan import ArtifactSpec
from transforms.registry import register
from transforms.smalltalk import meeting_chatter, meeting_opener, spoken_topic


# Meeting wording is a grammar ({a|b} choices, <slot> names: owner/first names, topic, day),
# so one domain's meetings do not repeat each other; a fact's own words are never edited.
_OPEN = ["{Okay|Right|Alright}, let's {get started|kick off|begin}{, thanks {everyone|all} for joining| — thanks for "
         "making time on a <wday>| — <first>, you're first up| while we wait for <other>}.",
         "{Right|Okay}, I think we have everyone{ except <first>| but <other>|}, so let's {start|begin}{ with the <topic> "
         "item|}.", "Thanks for making time{, everyone|, all|, <first> and <other>}{ — <first> will join late| on a busy "
         "<wday>|}, so let's kick off."]
_AGENDA = ["{Today|This session} I want to go through <n> questions {the team keeps getting|that keep coming up} "
           "{from customers|on <topic>|in the queue}.",
           "Agenda is short: <n> questions {from the floor|on <topic>}, then {any other business|AOB|a quick round}.",
           "We're here to settle <n> open questions{ on <topic>|} so the {knowledge base|macros} can be updated "
           "{by <next>|this week|today}."]
_ASKS = ["{First question|First one|Next one|Another one} {from the floor|from <first>'s queue|on <topic>}{.|:} <q>",
         "{<q>|{Okay|So}, <owner_first>. <q>}",
         "{Customers ask this a lot|This came up {three times|twice|again} {yesterday|this week|on <wday>}}{.|:} <q>"]
_SUPERSEDED = ["For context, {this is|here's} what the {earlier|first} draft said{ on <topic>|}. <old>",
               "Let me read out the {old|previous} version{ so <first> has it|}. <old>",
               "Just so we have it on the record, the {working notes|notes from the review} had this. <old>"]
_OWNER_LEADS = ["{So|Okay}, to be clear for {everyone|the team|<first> and everyone}.",
                "{Okay|Right}, here's the decision{ on this one|}.",
                "Let me state it so it goes in the {notes|minutes}{, <first>|}.",
                "This is the one to use with customers{ from today| from <next>|}."]
_ACKS = ["{Okay|Right}, that's clear{, thanks <owner_first>|}{ — I'll {tell|brief} the <topic> {queue|team}| for the "
         "<topic> macro|}.", "Got it, <owner_first>{ — {I'll pass that on|that's what I {thought|hoped}} {to <other>|for "
         "the <topic> item}|}.", "Makes sense{, thanks|, I'll tell the team|, <owner_first>}{ — <other> had the same "
         "question| — that clears up the <topic> item|}.", "{Perfect|Great|Brilliant}, {that settles the <topic> item|"
         "<owner_first>{, thanks| — noted for <wday>}}."]
_ACTIONS = ["I'll update the {knowledge base article|<topic> article|<topic> macro} {this afternoon|before <next>|today}"
            "{, <first>|}.",
            "I'll send the notes{ and the recording link|} {after this|by end of day}{, <first>|, <other>|}{ — <first> "
            "has the <topic> actions|}.",
            "{Can someone|<first>, can you|<other>, could you} update the {macros|<topic> macro} by <next>?",
            "Let's {check in on|revisit} {this|the <topic> item} at the {next team meeting|<next> huddle}{, <first>|}."]
_CLOSE = ["{Great|Okay}, thanks {everyone|all}{ — talk soon| — speak <next>| — have a good <wday>|, see you <next>}"
          "{, and thanks <first> for the notes|}.",
          "That's everything{ for today|}, thanks {all|everyone}{ — <first>, stay on a sec| — <other>, I'll send you the "
          "<topic> notes|}.",
          "{Okay|Right}, I'll let you go{ — thanks, everyone| — thanks <first>, thanks <other>| back to the queue}{!|.}"]
_HOLD = ["{Let's not quote that|Please don't quote that to customers} until I've checked{, <first>|}. "
         "I'll come back to you{ by <next>|}."]


def _ts(seconds: float) -> str:
    ms = int(round(seconds * 1000))
    h, rem = divmod(ms, 3600_000)
    m, rem = divmod(rem, 60_000)
    s, ms = divmod(rem, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}.{ms:03d}"


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


@register
class MeetingTranscript(Transformer):
    family = "conversations"
    kind = "meeting_transcript"
    ext = ".vtt"
    modality = "vtt"
    max_facts = 5
    weight = 1.0
    description = "Recorded working session captions (WebVTT) with speaker voice tags."

    def render(self, spec: ArtifactSpec, ctx: RenderContext, out: Path) -> None:
        rng = spec.rng("meeting")
        w, pack = ctx.writer, ctx.pack
        its, orphans = C.items(spec, ctx)
        day = CK.spec_date(spec)
        owner = RC.staff(ctx, rng, "manager", 1)[0]
        staff = RC.staff(ctx, rng, "agent", rng.randint(2, 3), exclude=(owner,))
        people = [owner] + staff
        start = CK.at(pack, day, rng.choice([9, 10, 11, 13, 14, 15]), rng.choice([0, 0, 30]))
        topics = sorted({ctx.writer.lower_first(headings.topic_of(it.fact)) for it in its})
        lines: list[tuple[str, str]] = []

        def talk(who: str, text: str) -> None:
            lines.append((who, text))

        nxt = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"][(day.weekday() + rng.randint(1, 3)) % 5]

        routine_topics = ["queue", "rota", "backlog", "callback list", "macro", "QA", "training", "handover"]
        room = rng.choice(["the Maple room", "the Harbour room", "room 3B", "the training room", "the Willow room"])

        def slots() -> dict[str, str]:
            a, b = rng.sample(staff, 2) if len(staff) > 1 else (staff[0], owner)
            topic = spoken_topic(rng.choice(topics)) if topics else rng.choice(routine_topics)
            return {"first": RC.first(a), "other": RC.first(b), "owner_first": RC.first(owner), "wday": f"{day:%A}",
                    "next": nxt, "topic": topic, "room": room,
                    "time": rng.choice(["eleven", "two o'clock", "half past three", "noon", "four", "half eleven",
                                        "quarter to three", "one"])}

        def line(pool: list[str], **raw: str) -> str:
            return say(rng.choice(pool), rng, slots(), raw=raw)

        def chatter(n: int) -> None:
            for text in meeting_chatter(rng, slots(), n):
                talk(rng.choice(staff), text)

        talk(rng.choice(staff), meeting_opener(rng, slots()))
        talk(owner, line(_OPEN))
        avoid = [d.text for d in spec.distractors]
        minutes = spec.size or 0

        def spoken_seconds() -> float:
            return sum(max(1.2, len(t.split()) / 2.6) + 1.35 for _, t in lines)

        def routine(n: int) -> None:
            for _ in range(n):
                for t in HS.meeting_item(ctx, rng, people, avoid=avoid):
                    talk(t.who if t.who in people else rng.choice(staff), t.text)
                chatter(1)

        if its:
            n = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}.get(len(its), str(len(its)))
            talk(owner, line(_AGENDA, n=n))
            chatter(1)
        else:
            routine(4)
        # routine items before and between the questions, until the session lasts `size` minutes
        slots_left = len(its) + 1
        per_slot = max(0.0, (minutes * 60 - 120 * len(its)) / slots_left) if minutes else 0.0
        for k, it in enumerate(its):
            goal = spoken_seconds() + per_slot
            while per_slot and spoken_seconds() < goal:
                routine(1)
            asker = rng.choice(staff)
            talk(asker, line(_ASKS, q=w.question(it.fact, rng, register="meeting")))
            asked = lines[-1][1]
            for d in it.wrong:
                talk(rng.choice([s for s in staff if s != asker] or staff),
                     C.hedged(ctx, it.fact, d, rng, role="colleague", register="meeting"))
            for d in it.superseded:
                talk(owner, line(_SUPERSEDED, old=C.hedged(ctx, it.fact, d, rng, on=CK.earlier_day(d, day, rng),
                                                           register="meeting")))
            if not it.distractors and rng.random() < 0.6:  # the owner answers at once, often with the figure
                talk(owner, C.answer(ctx, it, rng, asked, register="meeting"))
            else:
                if rng.random() < 0.4:
                    chatter(1)
                lead = line(_OWNER_LEADS) + " " if rng.random() < 0.5 else ""
                talk(owner, lead + C.reply(ctx, it, rng, after_wrong=bool(it.distractors), register="meeting"))
            if rng.random() < 0.6:
                talk(asker, line(_ACKS))
        for fact, d in orphans:
            talk(rng.choice(staff), C.hedged(ctx, fact, d, rng, role="colleague", on=CK.earlier_day(d, day, rng),
                                            register="meeting"))
            talk(owner, line(_HOLD))
        while minutes and spoken_seconds() < minutes * 60 + 30:
            routine(1)
        talk(owner, line(_ACTIONS))
        chatter(1)
        talk(owner, line(_CLOSE))

        t = rng.uniform(1.0, 4.0)
        cues = []
        for n, (who, text) in enumerate(lines, 1):
            dur = max(1.2, len(text.split()) / rng.uniform(2.3, 2.9))
            cues.append(f"{n}\n{_ts(t)} --> {_ts(t + dur)}\n<v {who}>{_esc(text)}</v>")
            t += dur + rng.uniform(0.2, 2.5)
        title = f"{topics[0].capitalize()} working session" if its else rng.choice(
            ["Weekly team sync", "Support team huddle", "Ops stand-up"])
        note = ["NOTE", f"{pack.brand.company} - {title}",
                f"Recorded {start:%Y-%m-%d %H:%M} {CK.tz_label(start)} ({RC.brand_short(pack)} Meet)",
                "Participants: " + ", ".join(people),
                f"Duration: {_ts(t)[:8]}. Automatic transcript; speaker names from meeting attendance."]
        text = "WEBVTT\nKind: captions\nLanguage: en-US\n\n" + "\n".join(note) + "\n\n" + "\n\n".join(cues) + "\n"
        out.write_text(text, encoding="utf-8")

    def extract(self, path: Path, ctx: ExtractContext) -> Extraction:
        return Extraction(text=extract_vtt(path), extractor="webvtt")
