"""Recorded support phone call (.wav, 16 kHz mono 16-bit): the line's recording notice, an
agent and a customer in two distinct synthetic voices, verification, the customer's
questions (and wrong beliefs), the agent's authoritative answers, small talk and a closing.
Values are spoken in words; a light phone-line high-pass is applied (no band limit, no hiss:
both cost the recogniser values)."""
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


_NOTICE = ["This call may be recorded for quality and training purposes.",
           "Thank you for calling. Calls are recorded for training purposes.",
           "Please hold while we connect you. This call may be recorded."]
_OPEN = ["Thank you for calling {company}, this is {agent}. How can I help you today?",
         "{company}, {agent} speaking. How can I help?",
         "Hello, you're through to {company} customer support, my name is {agent}. What can I do for you?",
         "Hi, thanks for holding. This is {agent} at {company}. How can I help you today?"]
_INTRO = ["Hi, my name is {customer}.", "Hello, this is {customer} calling.", "Hi there, it's {customer}.",
          "Good morning, my name is {customer}."]
_VERIFY = ["Thanks {first}. Can you confirm the email address on the account for me?",
           "Thank you. Could I have your full name and the email on file, please?",
           "Sure, I can help with that. Can you confirm the email address we have for you?"]
_VERIFY_REPLY = ["Yes, it's {email}.", "Sure, it should be {email}.", "It's {email}."]
_FOUND = ["Perfect, I have your account open now.", "Great, thank you, I can see your record.",
          "Thanks, that matches. I've got you here."]
_NEXT = ["One more thing.", "Also, while I have you.", "And another question.", "Okay, and one more."]
_ACK = ["Okay, got it.", "Ah, okay, good to know.", "Right, that makes sense.", "Okay, thanks.",
        "Oh, I didn't realise that."]
_OLD_NOTE = ["I can see an older note on your file. ", "Our knowledge base still has an old entry. "]
_ORPHAN_REPLY = ["I'll double check that one with the policy team and call you back.",
                 "Let me confirm that with my supervisor. I've added a note to your account."]
_BYE = ["Thanks for calling {company}. Goodbye.", "Take care, bye now.", "You're welcome. Bye."]
_SMALL_TALK = [
    ["I'd like to update the phone number on my account.", "Of course. What's the new number?",
     "It ends in four four two one.", "Done, that's updated. You'll get a confirmation email."],
    ["I didn't get my confirmation email.", "Let me resend it. Can you check your spam folder as well?",
     "Oh, there it is. Sorry about that.", "No problem at all."],
    ["Are you open on the weekend?", "Yes, we're open Saturday and Sunday from nine to five.",
     "Great, I'll come by on Saturday then.", "Sounds good."],
]


def _spoken_email(email: str) -> str:
    local, _, dom = email.partition("@")
    return f"{local.replace('.', ' dot ')} at {dom.replace('.', ' dot ')}"


@register
class CallAudio(Transformer):
    family = "recordings"
    kind = "call_audio"
    ext = ".wav"
    modality = "wav"
    max_facts = 3
    weight = 0.8
    description = "Recorded support phone call: agent and customer in two synthetic voices (WAV, 16 kHz)."

    def render(self, spec: ArtifactSpec, ctx: RenderContext, out: Path) -> None:
        rng = spec.rng("call")
        w = ctx.writer
        its, orphans = C.items(spec, ctx)
        day = CK.spec_date(spec)
        agent, cust = RC.staff(ctx, rng, "agent", 1)[0], RC.pick_customer(ctx, rng).name
        va, vc = S.staff_voice(rng), S.caller_voice(rng)
        subs = dict(company=ctx.pack.brand.company, agent=RC.first(agent), customer=cust, first=RC.first(cust),
                    email=_spoken_email(w.email(cust, internal=False)))
        lines: list[Utterance] = []

        def a(text: str, *facts, role: str = "", reword=None) -> None:
            lines.append(Utterance("agent", va, S.say(text, facts), facts=facts, role=role, reword=reword))

        def c(text: str, *facts, role: str = "", reword=None) -> None:
            lines.append(Utterance("customer", vc, S.say(text, facts), facts=facts, role=role, reword=reword))

        def belief(f, d) -> None:  # the customer's wrong value, hedged
            c(C.hedged(ctx, f, d, rng, role="customer"), f, role="wrong",
              reword=lambda r: C.hedged(ctx, f, d, r, role="customer"))

        def old_note(f, d) -> None:  # an old value on the customer's file, dated
            note = rng.choice(_OLD_NOTE)
            on = CK.earlier_day(d, day, rng, 7, 60)
            a(note + C.hedged(ctx, f, d, rng, on=on), f, role="wrong",
              reword=lambda r: note + C.hedged(ctx, f, d, r, on=on))

        lines.append(Utterance("line", A.LINE, rng.choice(_NOTICE)))
        a(rng.choice(_OPEN).format(**subs))
        c(w.greeting(rng, "customer") + " " + rng.choice(_INTRO).format(**subs))
        if rng.random() < 0.6:
            a(rng.choice(_VERIFY).format(**subs))
            c(rng.choice(_VERIFY_REPLY).format(**subs))
            a(rng.choice(_FOUND))
        if not its:
            for i, t in enumerate(rng.choice(_SMALL_TALK)):
                (c if i % 2 == 0 else a)(t)
        for n, it in enumerate(its):
            f = it.fact
            c((rng.choice(_NEXT) + " " if n else "") + w.question(f, rng, register="call"))
            wrong = False
            for d in it.wrong:
                belief(f, d)
                wrong = True
            if rng.random() < 0.5:
                a(w.filler(rng, "agent")[0])
            for d in it.superseded:
                old_note(f, d)
                wrong = True
            a(C.authoritative(ctx, it, rng, after_wrong=wrong, register="call"), f, role="state",
              reword=lambda r, it=it, wrong=wrong: C.authoritative(ctx, reworded(it), r, after_wrong=wrong,
                                                                   register="call"))
            rep = S.echo(ctx, f, rng, "customer") if rng.random() < 0.75 else None
            if rep:
                c(rep, f, role="echo", reword=lambda r, f=f: S.echo(ctx, f, r, "customer"))
            elif rng.random() < 0.6:
                c(rng.choice(_ACK), f)
        for f, d in orphans:
            if d.role == "superseded":
                old_note(f, d)
            else:
                belief(f, d)
            a(rng.choice(_ORPHAN_REPLY))
        a(w.closing(rng, "agent"))
        c(w.closing(rng, "customer"))
        a(rng.choice(_BYE).format(**subs))
        S.pauses(rng, lines)

        hearing = Hearing(spec, ctx, ctx.workdir)

        def write(lines: list[Utterance], dest: Path) -> list[tuple[float, float]]:
            spoken = S.speak(lines, ctx.workdir, synth=hearing.synth)
            A.write_wav(dest, A.telephone(spoken.samples))
            return spoken.spans

        hearing.deliver(lines, write, out, S.say)

    def extract(self, path: Path, ctx: ExtractContext) -> Extraction:
        return S.wav_extraction(path, ctx)

    def hear(self, path: Path, ctx: ExtractContext, ocr=None) -> tuple[Extraction, list]:
        """`extract` with its speech segments (the recording hearing itself: `hear_back`)."""
        return S.wav_hearing(path, ctx)
