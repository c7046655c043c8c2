"""Voicemail / internal voice memo (.wav, 16 kHz mono 16-bit) from a manager to the team
announcing a policy change: one synthetic voice, the date, the old value (hedged, as the
writer words a superseded or rumoured value) before the new one, and practical asides."""
from __future__ import annotations

from pathlib import Path

from transforms import clock as CK, common as C, records as RC
from transforms.base import ExtractContext, Extraction, RenderContext, Transformer
from transforms.extract import audio as A
from transforms.plan import ArtifactSpec
from transforms.registry import register

from . import script as S
from .hear_back import Hearing, reworded
from .script import Utterance


_OPEN = ["Hi team, it's {manager} from {company}. It's {weekday}, {date}, and I've got a quick policy update.",
         "Hey everyone, {manager} here. Quick voice memo for {weekday}, {date}, about a change you need to know.",
         "Hello all, this is {manager}. Sorry to catch you by voicemail, but there's an update for the team.",
         "Morning team, {manager} calling. Just a short update on {topic} before your next shift."]
_LEAD_NEW = ["So, going forward. ", "Here's what applies now. ", "From today. ", ""]
_LEAD_PLAIN = ["First up. ", "Also. ", "And one more. ", "Next. "]
_ASIDES = ["I know this came up a few times on the phones last week.",
           "The knowledge base article is being updated today.",
           "If a customer pushes back, just walk them through it politely.",
           "Please don't promise anything different on calls."]
_CLOSE = ["Please make sure everyone on your shift hears this. Thanks, talk soon.",
          "If anything is unclear, call me back or drop me a message. Thanks everyone.",
          "That's it from me. Thanks for all the hard work, bye for now."]
_NOISE = ["Reminder that the team meeting moved to Thursday at ten.",
          "The printer on the second floor is fixed, finally.",
          "Please submit your holiday requests by the end of the month.",
          "Thanks to everyone who covered the late shift on Monday."]


@register
class Voicemail(Transformer):
    family = "recordings"
    kind = "voicemail"
    ext = ".wav"
    modality = "wav"
    max_facts = 2
    weight = 0.5
    description = "Manager's voicemail or voice memo announcing a policy change (WAV, 16 kHz, one voice)."

    def render(self, spec: ArtifactSpec, ctx: RenderContext, out: Path) -> None:
        rng = spec.rng("voicemail")
        w = ctx.writer
        its, orphans = C.items(spec, ctx)
        day = CK.spec_date(spec)
        manager = RC.staff(ctx, rng, "manager", 1)[0]
        voice = S.staff_voice(rng)
        topic = w.topic(its[0].fact) if its else "the schedule"
        subs = dict(manager=manager, company=ctx.pack.brand.company, weekday=f"{day:%A}",
                    date=A.spoken_date(day), topic=topic)
        lines: list[Utterance] = []

        def m(text: str, *facts, role: str = "", reword=None) -> None:
            lines.append(Utterance("manager", voice, S.say(text, facts), facts=facts, role=role, reword=reword))

        def old_value(f, d, dated: bool) -> None:  # a superseded or rumoured value, hedged
            on = CK.earlier_day(d, day, rng, 7, 60) if dated else None
            m(C.hedged(ctx, f, d, rng, role="colleague", on=on), f, role="wrong",
              reword=lambda r: C.hedged(ctx, f, d, r, role="colleague", on=on))

        m(rng.choice(_OPEN).format(**subs))
        if not its:
            for t in rng.sample(_NOISE, 3):
                m(t)
        for n, it in enumerate(its):
            f = it.fact
            old = False
            for d in it.superseded:
                old_value(f, d, True)
                old = True
            for d in it.wrong:
                old_value(f, d, False)
                old = True
            lead = rng.choice(_LEAD_NEW) if old else (rng.choice(_LEAD_PLAIN) if len(its) > 1 else "")
            m(lead + C.authoritative(ctx, it, rng, after_wrong=old, register="call"), f, role="state",
              reword=lambda r, it=it, old=old, lead=lead: lead + C.authoritative(ctx, reworded(it), r, after_wrong=old,
                                                                                 register="call"))
            rep = S.echo(ctx, f, rng, "staff") if rng.random() < 0.75 else None
            if rep:
                m(rep, f, role="echo", reword=lambda r, f=f: S.echo(ctx, f, r, "staff"))
            if n == 0 and rng.random() < 0.7:
                m(rng.choice(_ASIDES))
        for f, d in orphans:
            old_value(f, d, True)
            m("I'll confirm that one in writing.")
        m(rng.choice(_CLOSE))
        for u in lines:
            u.pause = round(rng.uniform(0.4, 0.8), 2)

        hearing = Hearing(spec, ctx, ctx.workdir)

        def write(lines: list[Utterance], dest: Path) -> list[tuple[float, float]]:
            spoken = S.speak(lines, ctx.workdir, lead=0.6, synth=hearing.synth)
            A.write_wav(dest, A.telephone(spoken.samples))
            return spoken.spans

        hearing.deliver(lines, write, out, S.say)

    def extract(self, path: Path, ctx: ExtractContext) -> Extraction:
        return S.wav_extraction(path, ctx)

    def hear(self, path: Path, ctx: ExtractContext, ocr=None) -> tuple[Extraction, list]:
        """`extract` with its speech segments (the recording hearing itself: `hear_back`)."""
        return S.wav_hearing(path, ctx)
