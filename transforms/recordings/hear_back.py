"""Recordings hear their own audio before delivering it.

A synthetic voice sometimes says a value the recogniser hears as another one ("within five
business days" heard as "within nine business days", "less than twenty percent" losing its
"less than"). Nothing downstream can repair that: the recoverability gate reads the
delivered file. So a recording checks its own file where it is made:

1. the renderer writes the file from its lines (`Line`: one utterance, the facts whose values
   it says, its role, and how the writer could phrase it again);
2. it runs the **audit's own extraction** on that file (the kind's `extract`, with the
   file's speech vocabulary `transforms.hearing.speech_candidates`: same recogniser, same
   language model, same decoder settings) and checks the text the way the gate will
   (`transforms.hearing.file_problems`);
3. when a fact has a problem, its lines are checked **segment-wise**: the recogniser's
   speech segments (pocketsphinx's VAD regions, one transcript line each) are mapped to the
   lines by time, and a line whose segments do not hold exactly the values it says is
   misheard (no second decode: these are the segments of the audit's own extraction). The
   misheard lines of the fact (else its statement line) are **re-voiced**
   deterministically (`variant`: the writer's other phrasing of the same fact, an rng
   seeded from the artifact's seed, the line and the try; the same speaker slower, with
   longer gaps between words and another pitch; then another voice of the same kind of
   speaker), at most `MAX_TRIES` variants per line, and the file is written and heard
   again, at most `MAX_ROUNDS` times;
4. a file that still fails raises a one-line error naming the file and the fact; the
   extraction of the delivered file is filed in the build's extraction cache under the key
   the audit looks up (`transforms.hearing.extraction_key`), so the audit does not decode the
   same audio twice (a file the cache already knows is not decoded again at all).

A file heard correctly the first time is byte-identical to what the renderer wrote before
this check existed; everything is seeded, and recognition is deterministic, so two builds
stay byte-identical. The gate is not weakened: the audit still matches the delivered file's
extraction, and a real failure still fails the build (here, earlier, with the file named).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

import numpy as np

from facts.errors import FactforgeError
from facts.hashing import file_sha256
from facts.models import SlotType, value_key
from facts.surface import spoken_form
from facts.values import find_values
from transforms import hearing as H, registry
from transforms.base import ExtractContext, Extraction
from transforms.extract import audio as A
from transforms.extract.ocr import ocr_image

if TYPE_CHECKING:  # pragma: no cover
    from facts.models import Fact
    from transforms.base import RenderContext
    from transforms.plan import ArtifactSpec


MAX_ROUNDS = 12  # times a file is written and heard again after its first hearing


@dataclass
class Line:
    """One utterance of a recording. `text` is speakable (values in words); `facts` the facts
    whose values it says, `role` "state" (the authoritative statement), "wrong" (a hedged
    wrong or old value), "echo" (the value repeated) or "" (no value); `reword(rng)` gives
    the writer's text for another phrasing of the same thing (spoken through `say`)."""

    who: str
    voice: A.Voice
    text: str
    pause: float = 0.5
    facts: tuple["Fact", ...] = ()
    role: str = ""
    reword: Optional[Callable[[random.Random], str]] = None
    tries: int = 0  # variants given so far (0: as first written)
    tried: list = field(default_factory=list)  # the (text, voice) of each variant given

    def __post_init__(self) -> None:
        self.first = (self.text, self.voice)


# Another voice of the same kind of speaker (same label).
_ALTERNATE = {"en-us+f5": "en-us+f2", "en-us+edward": "en-us+edward2", "en-us+edward2": "en-us+edward"}
# The variants, in order: (writer's other phrasing, other voice, rate factor, extra word gap).
# The last four restate the line's values in a sentence of their own after it ("... a delay
# qualifies for compensation. That's at least three hours."), as a careful speaker does: a
# value said twice, the second time alone, gets a speech segment of its own. They came after a
# file that failed all of the first eight ("three hours" heard as "three years" or "three
# dollars" in each phrasing and voice, airline call_audio-0001). A fifth field: restate.
VARIANTS = ((True, False, 1.0, 0), (False, False, 0.9, 1), (True, False, 0.9, 1), (False, True, 1.0, 0),
            (True, True, 1.0, 0), (False, False, 0.8, 2), (True, True, 0.9, 1), (True, False, 1.1, 0),
            (False, False, 1.0, 0, True), (False, False, 0.9, 1, True), (True, False, 0.9, 1, True),
            (False, True, 0.9, 1, True))
_QUALIFIER_WORDS = {"at_least": "at least", "at_most": "at most", "up_to": "up to", "more_than": "more than",
                    "less_than": "less than"}


def restatement(line: "Line") -> str:
    """A short sentence saying again the values the line itself says ("That's at least three
    hours."), or "" when it says none of its facts' values (a restatement never adds a value
    the line did not say: a line that never says it still fails)."""

    said = []
    own = " ".join(line.first[0].lower().replace("-", " ").split())
    for f in line.facts:
        for sl in f.slots:
            if sl.type in H.SPOKEN_TYPES and spoken_form(sl).lower() in own:
                q = _QUALIFIER_WORDS.get(sl.qualifier or "", "")
                said.append(f"{q} {spoken_form(sl)}".strip())
    if not said:
        return ""
    return "That's " + " and ".join(dict.fromkeys(said)) + "."
MAX_TRIES = len(VARIANTS)  # variants a line may be given


def variant(line: Line, n: int, seed: random.Random, say: Callable[[str, tuple], str]) -> tuple[str, A.Voice]:
    """The n-th re-voicing of a line (1 <= n <= MAX_TRIES, `VARIANTS[n - 1]`): the writer's
    other phrasing of the same thing (when it has one; `seed` picks it), the same speaker
    slower or faster with longer gaps between words and another pitch, or another voice of
    the same kind of speaker (`_ALTERNATE`), alone or together."""
    reword, other, rate, gap, *rest = VARIANTS[n - 1]
    text, voice = line.first
    if reword and line.reword is not None:
        try:
            text = say(line.reword(seed), line.facts)
        except FactforgeError:  # the writer has no other wording of this fact: keep the line's
            pass
    if rest and rest[0] and line.role == "state":
        again = restatement(line)
        text = f"{text} {again}" if again else text
    pitch = voice.pitch if other else min(99, max(0, voice.pitch + seed.choice((-8, -4, 0, 4, 8))))
    name = _ALTERNATE.get(voice.name, A.STAFF_VOICES[0].name) if other else voice.name
    return text, replace(voice, name=name, wpm=max(110, round(voice.wpm * rate)), gap=voice.gap + gap, pitch=pitch)


def reworded(it):
    """The item (`transforms.common.Item`) to phrase again in the writer's own words: a
    canonical rendition becomes voiced, since rephrasing the policy's own sentence gives the
    same sentence (speech files are not linted for policy runs: `audits.lints`)."""
    return replace(it, rendition="voiced") if it.rendition == "canonical" else it


def _value_keys(text: str, currency: str) -> set[tuple]:
    return {value_key(t, v, vmax, unit) for t, v, vmax, unit, _s, _e in find_values(text, currency=currency)
            if t != SlotType.date}


Segment = tuple  # (start, end seconds, hypothesis): one speech segment of the delivered file


class Hearing:
    """One recording's hearing: its vocabulary, synthesis memo and the lines' checks."""

    def __init__(self, spec: "ArtifactSpec", ctx: "RenderContext", workdir: Optional[Path]):
        self.spec, self.ctx, self.workdir = spec, ctx, workdir
        self.kind = registry.get(spec.kind)
        self.currency = ctx.pack.info.currency
        self.candidates = H.speech_candidates(spec, ctx.facts, ctx.speech_words)
        self._audio: dict[tuple, np.ndarray] = {}
        self._ocr: dict[bytes, str] = {}

    def synth(self, text: str, voice: A.Voice) -> np.ndarray:
        key = (text, voice)
        if key not in self._audio:
            self._audio[key] = A.synthesize(text, voice, self.workdir)
        return self._audio[key]

    def ocr(self, image) -> str:
        """OCR of a video frame, memoised by its pixels (a re-voiced line only moves screens)."""

        key = image.tobytes()
        if key not in self._ocr:
            self._ocr[key] = ocr_image(image)
        return self._ocr[key]

    def extract(self, out: Path, need_segments: bool = False) -> tuple[Extraction, list[Segment], str, bool]:
        """The audit's extraction of the file: from the cache when it holds it (unless the
        speech segments are needed), else run here. Returns the extraction, its speech
        segments (empty from the cache), its cache key and whether it was computed here."""
        key = H.extraction_key(self.spec.kind, file_sha256(out), self.candidates)
        if not need_segments:
            ex = H.load(self.ctx.extraction_cache, key)
            if ex is not None:
                return ex, [], key, False
        ex, segments = self.kind.hear(out, ExtractContext(candidates=list(self.candidates), workdir=self.workdir),
                                      ocr=self.ocr)
        return ex, segments, key, True

    def deliver(self, lines: list[Line], write: Callable[[list[Line], Path], list[tuple[float, float]]],
                out: Path, say: Callable[[str, tuple], str]) -> None:
        """Write the file from `lines` (`write(lines, out)` returns each line's (start, end)
        seconds in the file), hear it, re-voice what was misheard, and file the delivered
        file's extraction (see the module doc). A round's re-voicing is kept unless the file
        has more problems after it (a line's new voice also shifts how the decoder hears the
        lines after it); then those lines go back to the best voicing so far and take their
        next variant in the next round."""
        best: Optional[tuple] = None  # (problem count, voicing, spans, segments, problems) of the best round
        problems: list[tuple[str, str]] = []
        for rnd in range(MAX_ROUNDS + 1):
            spans = write(lines, out)
            ex, segments, key, fresh = self.extract(out)
            problems = H.file_problems(self.spec, self.ctx.facts, ex.text, self.kind.modality, self.currency)
            if problems and not fresh:  # known to the cache but failing: hear it here, segments and all
                ex, segments, key, fresh = self.extract(out, need_segments=True)
            if not problems:
                break
            if best is not None and len(problems) > best[0]:  # worse: back to the best voicing
                for ln, said in zip(lines, best[1]):
                    ln.text, ln.voice = said
                if rnd == MAX_ROUNDS or not self._revoice(lines, best[2], best[3], best[4], say):
                    break
                continue
            best = (len(problems), [(ln.text, ln.voice) for ln in lines], spans, segments, problems)
            if rnd == MAX_ROUNDS or not self._revoice(lines, spans, segments, problems, say):
                break
        if problems:
            fid, why = (best[4] if best is not None else problems)[0]
            raise FactforgeError(f"{self.spec.path}: the recogniser does not hear fact {fid} as the recording "
                                 f"says it after {rnd} re-voicing round(s): {why}")
        if fresh and self.ctx.extraction_cache is not None:
            H.store(self.ctx.extraction_cache, key, ex)
        if self.ctx.notes is not None:
            self.ctx.notes["heard"] = fresh and self.ctx.extraction_cache is not None
            self.ctx.notes["revoiced"] = sum((ln.text, ln.voice) != ln.first for ln in lines)

    def misheard(self, lines: list[Line], spans: list[tuple[float, float]], segments: list[Segment]) -> list[int]:
        """Lines (indices) whose values the file's recognition did not hear as said: the
        speech segments overlapping a line must hold every value it says, and the segments
        that overlap it alone no other value."""
        over: list[list[int]] = [[] for _ in lines]
        for k, (s, e, _h) in enumerate(segments):
            hits = [i for i, (a, b) in enumerate(spans) if min(b, e) - max(a, s) > 0.02]
            for i in hits:
                over[i].append(k)
        out = []
        for i, ln in enumerate(lines):
            if not ln.role:
                continue
            said = _value_keys(ln.text, self.currency)
            heard = _value_keys(" ".join(segments[k][2] for k in over[i]), self.currency)
            alone = [k for k in over[i] if all(k not in over[j] for j in range(len(lines)) if j != i)]
            extra = _value_keys(" ".join(segments[k][2] for k in alone), self.currency) - said
            if not said <= heard or extra:
                out.append(i)
        return out

    def _revoice(self, lines: list[Line], spans, segments, problems: list[tuple[str, str]], say) -> bool:
        """Re-voice the lines behind `problems`: the misheard lines that say the fact, else
        its statement line. False when none of them has a try left."""
        wrong = set(self.misheard(lines, spans, segments))
        changed = False
        for fid in dict.fromkeys(f for f, _ in problems):
            mine = [i for i, ln in enumerate(lines) if ln.role and any(f.id == fid for f in ln.facts)]
            targets = [i for i in mine if i in wrong] or [i for i in mine if lines[i].role == "state"] or mine
            for i in targets:
                changed |= self._next_variant(lines, i, say)
        return changed

    def _next_variant(self, lines: list[Line], i: int, say) -> bool:
        """Give line i its next variant that differs from every voicing it had (a canonical
        statement reworded may come out the same); False when it has no try left."""
        ln = lines[i]
        seen = {ln.first, (ln.text, ln.voice)} | set(ln.tried)
        while ln.tries < MAX_TRIES:
            ln.tries += 1
            said = variant(ln, ln.tries, self.spec.rng(f"revoice:{i}:{ln.tries}"), say)
            if said not in seen:
                ln.text, ln.voice = said
                ln.tried.append(said)
                return True
        return False
