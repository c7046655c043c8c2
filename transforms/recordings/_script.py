"""Helpers shared by the recording kinds: grouping a spec's facts with the wrong/old values that
must precede them, turning writer sentences into speakable text (values in words), record
dates and people, and speaking a script of utterances into one 16 kHz track.

Every random choice comes from an rng the caller seeded with `spec.rng(...)`; nothing reads
the wall clock.
"""
from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import numpy as np

from facts.errors import FactforgeError
from facts.surface import spoken_form, surface_forms
from transforms.extract import audio as A

if TYPE_CHECKING:  # pragma: no cover
    from facts.models import Fact
    from transforms.base import ArtifactSpec, Distractor, ExtractContext, Extraction, RenderContext

# Leads for an authoritative statement that follows a wrong or old value (no hedge marker).
_VOICED_CORRECTION_LEADS = ["Let me set the record straight. ", "I checked the current version. ",
                            "I confirmed this with the policy owner. ", "I looked it up just now. "]


def staff_voice(rng: random.Random) -> A.Voice:
    """The voice of whoever states the facts (agent, manager, narrator): the one that
    confuses the fewest values (see transforms.extract.audio)."""
    return rng.choice(A.STAFF_VOICES)


def caller_voice(rng: random.Random) -> A.Voice:
    """A customer's voice, clearly different from the staff voice."""
    return rng.choice(A.CALLER_VOICES)


# --- facts -------------------------------------------------------------------------------
@dataclass
class Item:
    """A fact the recording states authoritatively, with the wrong/old mentions before it."""

    fact: "Fact"
    rendition: str
    distractors: list["Distractor"] = field(default_factory=list)

    @property
    def wrong(self) -> list["Distractor"]:
        return [d for d in self.distractors if d.role == "distractor"]

    @property
    def superseded(self) -> list["Distractor"]:
        return [d for d in self.distractors if d.role == "superseded"]


def items(spec: "ArtifactSpec", ctx: "RenderContext") -> tuple[list[Item], list[tuple["Fact", "Distractor"]]]:
    """Carried facts in spec order with their distractors, and distractors of facts this
    recording does not carry (mentioned hedged only)."""
    if spec.noise:
        return [], []

    def look(fid: str) -> "Fact":
        try:
            return ctx.fact(fid)
        except KeyError:
            raise FactforgeError(f"artifact {spec.id} ({spec.kind}) names unknown fact {fid!r}") from None

    out, by_id = [], {}
    for m in spec.facts:
        it = Item(look(m.fact_id), m.rendition)
        out.append(it)
        by_id[m.fact_id] = it
    orphans = []
    for d in spec.distractors:
        if d.fact_id in by_id:
            by_id[d.fact_id].distractors.append(d)
        else:
            orphans.append((look(d.fact_id), d))
    return out, orphans


def tidy(text: str) -> str:
    text = re.sub(r"([?!])\.(?!\.)", r"\1", text)
    text = re.sub(r"(?<!\.)\.\.(?!\.)", ".", text)
    return re.sub(r"(, )(The|A|An)(?= )", lambda m: m.group(1) + m.group(2).lower(), text)


def section_of(fact: "Fact") -> str:
    return fact.section[-1] if fact.section else "General"


def say(text: str, facts: tuple["Fact", ...] = ()) -> str:
    """Writer text -> what the voice reads: each fact's value surfaces replaced by its spoken
    form, then every remaining symbol/digit spelled out."""
    for f in facts:
        for s in f.slots:
            for form in sorted(surface_forms(s), key=len, reverse=True):
                if re.search(r"\d|[$%€£]", form):  # whole values only: "$5" is not inside "$50"
                    text = re.sub(rf"(?<![\w$.,]){re.escape(form)}(?![\w%]|[.,]\d)", spoken_form(s), text)
    return A.speakable(tidy(text))


_ECHO = {"customer": ["{value}, okay, got it.", "So {value}. Okay, thanks.", "Okay, {value}. Good to know.",
                      "Right, {value}. That makes sense."],
         "staff": ["So again, {topic}: {value}.", "Just to repeat, {topic}: {value}.",
                   "That's {value} for {topic}."]}


def echo(ctx: "RenderContext", fact: "Fact", rng: random.Random, who: str) -> Optional[str]:
    """A listener repeating the value back, or a speaker repeating it ("So again, late fee:
    twelve dollars."): people confirm numbers on calls and in memos. None for facts with no
    value."""
    if not fact.slots:
        return None
    value = " and ".join(spoken_form(s) for s in fact.slots)
    t = rng.choice(_ECHO[who]).format(value=value, topic=ctx.writer.topic(fact))
    return t[0].upper() + t[1:]


def authoritative(ctx: "RenderContext", it: Item, rng: random.Random, after_wrong: bool) -> str:
    w = ctx.writer
    if not after_wrong:
        return w.statement(it.fact, it.rendition, rng)
    if it.rendition == "canonical":
        return w.correction(it.fact, rng)
    return rng.choice(_VOICED_CORRECTION_LEADS) + w.statement(it.fact, "voiced", rng)


def hedged(ctx: "RenderContext", fact: "Fact", d: "Distractor", rng: random.Random, role: str = "customer",
           on: Optional[dt.date] = None) -> str:
    """A wrong or superseded value inside the writer's hedged sentence; a superseded value
    without its own date is dated `on`."""
    if d.role == "superseded" and not d.date and on is not None:
        d = d.model_copy(update={"date": on.isoformat()})
    return ctx.writer.distractor(fact, d, rng, role=role)


# --- dates and people --------------------------------------------------------------------
def record_day(spec: "ArtifactSpec") -> dt.date:
    try:
        return dt.date.fromisoformat(spec.date[:10])
    except ValueError:
        raise FactforgeError(f"artifact {spec.id}: date {spec.date!r} is not an ISO date") from None


def earlier_day(d: "Distractor", day: dt.date, rng: random.Random) -> dt.date:
    try:
        own = dt.date.fromisoformat((d.date or "")[:10])
        if own < day:
            return own
    except ValueError:
        pass
    return day - dt.timedelta(days=rng.randint(7, 60))


def staff(ctx: "RenderContext", rng: random.Random, role: str) -> str:
    b = ctx.pack.brand
    pool = list(b.agents if role == "agent" else b.managers)
    return rng.choice(pool) if pool else ctx.writer.person(rng, role)


def customer(ctx: "RenderContext", rng: random.Random) -> str:
    names = []
    for table in sorted(ctx.db or {}):
        recs = ctx.db[table]
        vals = recs.values() if isinstance(recs, dict) else recs if isinstance(recs, list) else []
        for r in vals:
            n = r.get("name") if isinstance(r, dict) else None
            if isinstance(n, str) and re.fullmatch(r"[A-Za-z][A-Za-z .'-]+ [A-Za-z .'-]+", n):
                names.append(n)
    names = sorted(set(names)) or list(ctx.pack.brand.customers)
    return rng.choice(names) if names else ctx.writer.person(rng, "customer")


def first(name: str) -> str:
    return name.split()[0] if name else name


# --- speaking a script -------------------------------------------------------------------
@dataclass
class Utterance:
    who: str
    voice: A.Voice
    text: str            # already speakable
    pause: float = 0.5   # silence after it, seconds


@dataclass
class Spoken:
    samples: np.ndarray
    spans: list[tuple[float, float]]  # (start, end) seconds of each utterance


def speak(lines: list[Utterance], workdir: Optional[Path], lead: float = 0.4) -> Spoken:
    parts, spans, t = [A.silence(lead)], [], lead
    for u in lines:
        x = A.synthesize(u.text, u.voice, workdir)
        spans.append((t, t + A.duration(x)))
        parts += [x, A.silence(u.pause)]
        t += A.duration(x) + u.pause
    return Spoken(np.concatenate(parts), spans)


def pauses(rng: random.Random, lines: list[Utterance], lo: float = 0.35, hi: float = 0.8) -> None:
    """Seeded turn gaps: longer when the speaker changes, short within a speaker's turn."""
    for a, b in zip(lines, lines[1:]):
        a.pause = round(rng.uniform(lo, hi) if a.who != b.who else rng.uniform(0.3, 0.45), 2)
    if lines:
        lines[-1].pause = 0.6


def wav_extraction(path: Path, ctx: "ExtractContext") -> "Extraction":
    """Speech recognition of a delivered WAV: restricted to the candidate phrases when the
    audit passes them, else the free transcription."""
    from transforms.base import Extraction  # noqa: PLC0415
    from transforms.extract.asr import transcribe, transcribe_free  # noqa: PLC0415

    if ctx.candidates:
        return Extraction(text=transcribe(path, ctx.candidates), extractor="asr-pocketsphinx-grammar")
    return Extraction(text=transcribe_free(path), extractor="asr-pocketsphinx-free")
