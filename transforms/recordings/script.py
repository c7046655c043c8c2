"""Helpers shared by the recording kinds: grouping a spec's facts with the wrong/old values that
must precede them, turning writer sentences into speakable text (values in words), record
dates and people, and speaking a script of utterances into one 16 kHz track.

Every random choice comes from an rng the caller seeded with `spec.rng(...)`; nothing reads
the wall clock.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

import numpy as np

from facts.surface import spoken_form, surface_forms
from transforms.base import Extraction
from transforms.common import tidy
from transforms.extract import audio as A

from .hear_back import Line as Utterance

if TYPE_CHECKING:  # pragma: no cover
    from facts.models import Fact
    from transforms.base import ExtractContext, Extraction, RenderContext


def staff_voice(rng: random.Random) -> A.Voice:
    """The voice of whoever states the facts (agent, manager, narrator): the one that
    confuses the fewest values (see transforms.extract.audio)."""
    return rng.choice(A.STAFF_VOICES)


def caller_voice(rng: random.Random) -> A.Voice:
    """A customer's voice, clearly different from the staff voice."""
    return rng.choice(A.CALLER_VOICES)


# --- facts -------------------------------------------------------------------------------
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


# --- speaking a script -------------------------------------------------------------------
@dataclass
class Spoken:
    samples: np.ndarray
    spans: list[tuple[float, float]]  # (start, end) seconds of each utterance


def speak(lines: list[Utterance], workdir: Optional[Path], lead: float = 0.4,
          synth: Optional[Callable[[str, A.Voice], np.ndarray]] = None) -> Spoken:
    """The lines spoken one after the other, each followed by its pause. `synth(text, voice)`
    (default: `audio.synthesize`) lets a recording that hears itself reuse its lines' audio."""
    synth = synth or (lambda text, voice: A.synthesize(text, voice, workdir))
    parts, spans, t = [A.silence(lead)], [], lead
    for u in lines:
        x = synth(u.text, u.voice)
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
    return wav_hearing(path, ctx)[0]


def wav_hearing(path: Path, ctx: "ExtractContext") -> tuple["Extraction", list[tuple[float, float, str]]]:
    """`wav_extraction` and its speech segments (start, end seconds, hypothesis; empty for
    the free transcription): what a recording hearing itself maps to its lines."""
    from transforms.extract.asr import (joined, load_pcm, phrases_in_dictionary,  # noqa: PLC0415  (heavy; loaded on first use)
                                        transcribe_free, transcribe_timed)

    if ctx.candidates and phrases_in_dictionary(list(ctx.candidates)):
        segments = transcribe_timed(load_pcm(path), ctx.candidates)
        return Extraction(text=joined(h for _s, _e, h in segments), extractor="asr-pocketsphinx-grammar"), segments
    if ctx.candidates:  # as `transcribe` does when no candidate is in the dictionary
        return Extraction(text=transcribe_free(path), extractor="asr-pocketsphinx-grammar"), []
    return Extraction(text=transcribe_free(path), extractor="asr-pocketsphinx-free"), []
