"""Meeting transcript (.vtt): the WebVTT captions a meeting tool saves for a recorded working
session: header, a NOTE with title, date and participants, then numbered cues with
HH:MM:SS.mmm timings and `<v Speaker>` voice tags. Staff raise questions (and sometimes a
wrong or old value), the policy owner states the rule; small talk and actions around it."""
from __future__ import annotations

from pathlib import Path

from transforms.base import ArtifactSpec, ExtractContext, Extraction, RenderContext, Transformer
from transforms.extract.text import extract_vtt
from transforms.registry import register

from transforms import common as C
from transforms import haystack as H
from transforms.smalltalk import MEETING_OPENERS, MEETING_SMALLTALK

_OPEN = ["Okay, let's get started, thanks everyone for joining.", "Right, I think we have everyone. Let's start.",
         "Thanks for making time. Let's kick off."]
_AGENDA = ["Today I want to go through {n} questions the team keeps getting from customers.",
           "Agenda is short: {n} questions from the floor, then any other business.",
           "We're here to settle {n} open questions so the knowledge base can be updated."]
_ASKS = ["First question from the floor. {q}", "Next one. {q}", "{q}", "Customers ask this a lot. {q}"]
_SUPERSEDED = ["For context, this is what the earlier draft said. {old}", "Let me read out the old version. {old}",
               "Just so we have it on the record, the working notes had this. {old}"]
_OWNER_LEADS = ["So, to be clear for everyone.", "Okay, here's the decision.", "Let me state it so it goes in the notes.",
                "This is the one to use with customers."]
_ACTIONS = ["I'll update the knowledge base article this afternoon.", "I'll send the notes and the recording link after this.",
            "Can someone update the macros by Friday?", "Let's check in on this at the next team meeting."]
_CLOSE = ["Great, thanks everyone. Talk soon.", "That's everything, thanks all.", "Okay, I'll let you go. Thanks!"]


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
        day = C.spec_date(spec)
        owner = C.staff(ctx, rng, "manager", 1)[0]
        staff = C.staff(ctx, rng, "agent", rng.randint(2, 3), exclude=(owner,))
        people = [owner] + staff
        start = C.at(pack, day, rng.choice([9, 10, 11, 13, 14, 15]), rng.choice([0, 0, 30]))
        topics = sorted({C.section_of(it.fact).lower() for it in its})
        lines: list[tuple[str, str]] = []

        def talk(who: str, text: str) -> None:
            lines.append((who, text))

        def chatter(n: int) -> None:
            for text in rng.sample(MEETING_SMALLTALK, n):
                talk(rng.choice(staff), text)

        talk(rng.choice(staff), rng.choice(MEETING_OPENERS))
        talk(owner, rng.choice(_OPEN))
        if its:
            n = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}.get(len(its), str(len(its)))
            talk(owner, rng.choice(_AGENDA).format(n=n))
            chatter(1)
        else:
            for _ in range(4):
                for t in H.meeting_item(ctx, rng, people, avoid=[d.text for d in spec.distractors]):
                    talk(t.who if t.who in people else rng.choice(staff), t.text)
                chatter(1)
        for it in its:
            asker = rng.choice(staff)
            talk(asker, rng.choice(_ASKS).format(q=w.question(it.fact, rng, register="meeting")))
            for d in it.wrong:
                talk(rng.choice([s for s in staff if s != asker] or staff),
                     C.hedged(ctx, it.fact, d, rng, role="colleague", register="meeting"))
            for d in it.superseded:
                talk(owner, rng.choice(_SUPERSEDED).format(old=C.hedged(ctx, it.fact, d, rng, on=C.earlier_day(d, day, rng),
                                                                        register="meeting")))
            if rng.random() < 0.4:
                chatter(1)
            lead = rng.choice(_OWNER_LEADS) + " " if rng.random() < 0.5 else ""
            talk(owner, lead + C.authoritative(ctx, it, rng, after_wrong=bool(it.distractors), register="meeting"))
            if rng.random() < 0.6:
                talk(asker, rng.choice(["Okay, that's clear.", "Got it.", "Makes sense, thanks.", "Perfect."]))
        for fact, d in orphans:
            talk(rng.choice(staff), C.hedged(ctx, fact, d, rng, role="colleague", on=C.earlier_day(d, day, rng),
                                            register="meeting"))
            talk(owner, "Let's not quote that until I've checked. I'll come back to you.")
        talk(owner, rng.choice(_ACTIONS))
        chatter(1)
        talk(owner, rng.choice(_CLOSE))

        t = rng.uniform(1.0, 4.0)
        cues = []
        for n, (who, text) in enumerate(lines, 1):
            dur = max(1.2, len(text.split()) / rng.uniform(2.3, 2.9))
            cues.append(f"{n}\n{_ts(t)} --> {_ts(t + dur)}\n<v {who}>{_esc(text)}</v>")
            t += dur + rng.uniform(0.2, 2.5)
        title = f"{topics[0].capitalize()} working session" if its else rng.choice(
            ["Weekly team sync", "Support team huddle", "Ops stand-up"])
        note = ["NOTE", f"{pack.brand.company} - {title}",
                f"Recorded {start:%Y-%m-%d %H:%M} {C.tz_label(start)} ({C.brand_short(pack)} Meet)",
                "Participants: " + ", ".join(people),
                f"Duration: {_ts(t)[:8]}. Automatic transcript; speaker names from meeting attendance."]
        text = "WEBVTT\nKind: captions\nLanguage: en-US\n\n" + "\n".join(note) + "\n\n" + "\n\n".join(cues) + "\n"
        out.write_text(text, encoding="utf-8")

    def extract(self, path: Path, ctx: ExtractContext) -> Extraction:
        return Extraction(text=extract_vtt(path), extractor="webvtt")
