"""Speech recognition of delivered audio with pocketsphinx 5 (offline, bundled en-us model).

Free transcription (`transcribe_free`, the bundled 130k-word trigram model) is weak on
synthetic voices: numbers come back as look-alike words ("twelve dollars" -> "whale
dollars", "fifty" -> "thirty"). The audits only need to know *which of the domain's values* a
recording states, so `transcribe` restricts recognition to the candidate phrases the caller
passes (the domain's values in spoken form, "seventy five dollars", plus anchor terms)
inside an ordinary background vocabulary:

- a bigram language model is written on the fly (ARPA): the 3,000 most probable words of the
  bundled model with their own unigram probabilities, number words, months and weekdays,
  and the candidates' words. Every candidate word gets the same unigram probability (that
  of the 50th most frequent English word: no value is favoured over another) and each word
  pair inside a candidate phrase a bigram of 0.3, so a phrase is cheap to recognise as a
  whole but gets no advantage when it was not said;
- the decoder therefore chooses between candidates acoustically ("fifty dollars" vs "forty
  dollars"), while speech that is not a candidate is absorbed by background words instead
  of being forced onto a candidate (which a grammar of candidates alone does; a JSGF loop
  of candidates plus filler words or a phone loop was also 20-100x slower than real time);
- audio is split at silences (pocketsphinx's VAD segmenter) and each speech segment is
  decoded as its own utterance; the transcript has one line per segment.

Candidates are normalised to speakable words (digits and symbols spelled out, as the
renderers' text-to-speech does); words missing from the pronouncing dictionary are dropped
and a phrase is split around them. The writers' hedge markers ("i was told", "used to be")
are always added, so the transcript keeps what marks a value as wrong or old. Input audio of
any format is converted to 16 kHz mono 16-bit (ffmpeg from imageio-ffmpeg for anything that
is not already such a WAV).
"""
from __future__ import annotations

import math
import re
import subprocess
import tempfile
import wave
from functools import lru_cache
from pathlib import Path
from typing import Iterable

RATE = 16000

# Background vocabulary: frequent words of phone calls, voice memos and narrations.
_BACKGROUND = """
a about above account actually add after again ago all already also always am an and another
any anything are around as ask asked at available away back bank be because been before being
best better between bit both but by call called calling can can't card case change changed
changes check checked close come coming company confirm could customer customers date day days
did didn't do does doesn't doing don't done down each early email end ends even every everyone
everything example fine first for found free from get gets getting give go goes going good got
great had has have having he hello help here hi him his hold home hope how however i i'll i'm
i've if in information instead into is isn't it it's its just keep kind know last later let
let's like line list little look looking lot made make many may maybe me mean message minute
minutes moment month months more most much my name need needs never new next no not note nothing
now number of off office ok okay old on once one only open or order other our out over own part
people per phone please point policy pull put question quick quite rather really reason record
recorded refund remember rest right said same say says see send set she should since so some
someone something soon sorry start still sure system take team tell than thank thanks that
that's the their them then there there's these they thing things think this those thought
through time to today told too training two under understand until up update us use used very
wait want wanted was way we we'll we're week weeks well were what what's when where which while
who why will with without work would yeah year years yes yet you you're your
zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred
thousand million first second third fourth fifth
january february march april may june july august september october november december
monday tuesday wednesday thursday friday saturday sunday
dollars percent hours business calendar
""".split()

_DICT_WORD = re.compile(r"^([^\s(]+)(?:\(\d+\))?\s")


def model_path(sub: str = "") -> str:
    from pocketsphinx import get_model_path  # noqa: PLC0415

    return get_model_path(sub) if sub else get_model_path()


@lru_cache(maxsize=1)
def dictionary_words() -> frozenset[str]:
    """Words of the bundled pronouncing dictionary (cmudict-en-us)."""
    words = set()
    with open(model_path("en-us/cmudict-en-us.dict"), encoding="utf-8") as f:
        for line in f:
            m = _DICT_WORD.match(line)
            if m:
                words.add(m.group(1))
    return frozenset(words)


def normalize(phrase: str) -> str:
    """Candidate text -> the words a voice says ("$75" -> "seventy five dollars")."""
    from .audio import speakable  # noqa: PLC0415

    t = speakable(phrase).lower()
    t = re.sub(r"[^a-z' ]+", " ", t)
    return " ".join(w.strip("'") for w in t.split() if w.strip("'"))


def phrases_in_dictionary(candidates: Iterable[str]) -> list[str]:
    """Normalised candidate phrases, split around words the dictionary does not know."""
    known = dictionary_words()
    out, seen = [], set()
    for c in candidates:
        run: list[str] = []
        for w in normalize(c).split() + [None]:
            if w is not None and w in known:
                run.append(w)
                continue
            if run:
                p = " ".join(run)
                if p not in seen:
                    seen.add(p)
                    out.append(p)
            run = []
    return out


def hedge_phrases() -> list[str]:
    """The writers' hedge markers ("i was told", "used to be"), so a transcript keeps the
    words that tell a wrong or old value from the current one."""
    from transforms.writers import HEDGE_MARKERS  # noqa: PLC0415

    return list(HEDGE_MARKERS)


@lru_cache(maxsize=4)
def frequent_words(n: int = 3000) -> tuple[tuple[str, float], ...]:
    """The `n` most probable words of the bundled en-us language model with their log10
    unigram probabilities (the model itself cannot list its words: every word of the
    pronouncing dictionary is looked up)."""
    from pocketsphinx import Config, LogMath, NGramModel  # noqa: PLC0415

    logmath = LogMath()
    lm = NGramModel(Config(), logmath, model_path("en-us/en-us.lm.bin"))
    scored = []
    for w in sorted(dictionary_words()):
        if w.isalpha() or "'" in w:
            lp = lm.prob([w])
            lp = lp[0] if isinstance(lp, tuple) else lp
            if lp > -10**8:
                scored.append((-lp, w))
    scored.sort()
    return tuple((w, _to_log10(logmath, -neg)) for neg, w in scored[:n])


def _to_log10(logmath, value: int) -> float:
    return math.log10(max(logmath.exp(value), 1e-99))


def arpa_bigram(phrases: list[str], background: Iterable[str] = (), n_frequent: int = 3000,
                p_phrase: float = 0.3, candidate_rank: int = 50, plain: Iterable[str] = ()) -> str:
    """A bigram LM (ARPA text) over the `n_frequent` most probable words of the bundled model
    (with their own unigram probabilities), the `background` list and the candidate
    phrases' words. Every candidate word gets the unigram probability of the
    `candidate_rank`-th most frequent word (no value is favoured over another); each word
    pair inside a phrase gets a bigram of probability `p_phrase`; every other pair backs off
    to the unigrams; `plain` words get the candidate unigram and no bigram. (Measured: flat unigrams or a floor at rank 300 lost more values, e.g.
    "is twelve" -> "it's will"; p_phrase 0.6 changed nothing.)"""
    known = dictionary_words()
    freq = dict(frequent_words(n_frequent)) if n_frequent else {}
    cand = {w for p in phrases for w in p.split()} | set(plain)
    vocab = sorted(set(freq) | {w for w in background if w in known} | cand)
    common = sorted(freq.values(), reverse=True)
    floor = common[min(len(common) - 1, candidate_rank)] if common else math.log10(1.0 / (len(vocab) + 1))

    def uni(w: str) -> float:
        return floor if w in cand else freq.get(w, floor)

    pairs = sorted({(a, b) for p in phrases for a, b in zip(p.split(), p.split()[1:])})
    lines = ["\\data\\", f"ngram 1={len(vocab) + 2}", f"ngram 2={len(pairs)}", "", "\\1-grams:",
             "-99.0000 <s> 0.0000", f"{floor:.4f} </s> 0.0000"]
    lines += [f"{uni(w):.4f} {w} 0.0000" for w in vocab]
    lines += ["", "\\2-grams:"] + [f"{math.log10(p_phrase):.4f} {a} {b}" for a, b in pairs]
    lines += ["", "\\end\\", ""]
    return "\n".join(lines)


# Extra pronunciations for words espeak-ng says in a way the model's dictionary entry misses:
# after "is", "twelve" loses its /t/ and was heard as "it's will" / "will bother" (3-4 of 5).
ALT_PRONUNCIATIONS: dict[str, str] = {"twelve(2)": "W EH L V"}


# --- audio in ----------------------------------------------------------------------------
def ffmpeg_exe() -> str:
    import imageio_ffmpeg  # noqa: PLC0415

    return imageio_ffmpeg.get_ffmpeg_exe()


def to_wav16k(src: Path, dst: Path) -> None:
    """Any audio (or the audio track of a video) -> 16 kHz mono 16-bit WAV."""
    subprocess.run([ffmpeg_exe(), "-nostdin", "-loglevel", "error", "-y", "-i", str(src), "-vn",
                    "-ac", "1", "-ar", str(RATE), "-c:a", "pcm_s16le", "-fflags", "+bitexact",
                    "-map_metadata", "-1", str(dst)], check=True)


def load_pcm(path: str | Path) -> bytes:
    """16 kHz mono signed 16-bit little-endian samples of an audio file."""
    path = Path(path)
    try:
        with wave.open(str(path), "rb") as w:
            if (w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getcomptype()) == (1, 2, RATE, "NONE"):
                return w.readframes(w.getnframes())
    except (wave.Error, EOFError):
        pass
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "a.wav"
        to_wav16k(path, out)
        with wave.open(str(out), "rb") as w:
            return w.readframes(w.getnframes())


def speech_segments(pcm: bytes) -> list[bytes]:
    """Speech regions of the audio (pocketsphinx VAD), in order."""
    import io  # noqa: PLC0415

    from pocketsphinx import Segmenter  # noqa: PLC0415

    seg = Segmenter(sample_rate=RATE)
    parts = [s.pcm for s in seg.segment(io.BytesIO(pcm))]
    return parts or ([pcm] if pcm else [])


# --- decoding ----------------------------------------------------------------------------
def _decode(decoder, segments: list[bytes]) -> str:
    lines = []
    for pcm in segments:
        decoder.start_utt()
        decoder.process_raw(pcm, full_utt=True)
        decoder.end_utt()
        hyp = decoder.hyp()
        text = " ".join(w for w in (hyp.hypstr.split() if hyp else []) if not w.startswith(("<", "[", "+")))
        if text:
            lines.append(text)
    return "\n".join(lines)


def transcribe(path: str | Path, candidates: list[str], plain: Iterable[str] = ()) -> str:
    """Transcript of the audio recognised against the candidate phrases (see module doc).
    Without candidates, the free transcription. `plain` phrases join the vocabulary word by
    word, with a candidate's unigram probability but no phrase bonus: they can be heard, but
    are not favoured as a whole (the leak scan's stricter pass uses this for base terms)."""
    phrases = phrases_in_dictionary(list(candidates))
    if not phrases:
        return transcribe_free(path)
    phrases = phrases + [p for p in phrases_in_dictionary(hedge_phrases()) if p not in phrases]
    extra = [w for p in phrases_in_dictionary(list(plain)) for w in p.split()]
    from pocketsphinx import Decoder  # noqa: PLC0415

    segments = speech_segments(load_pcm(path))
    with tempfile.TemporaryDirectory() as tmp:
        lm = Path(tmp) / "candidates.arpa"
        lm.write_text(arpa_bigram(phrases, [*_BACKGROUND, *extra], plain=extra), encoding="utf-8")
        decoder = Decoder(lm=str(lm), samprate=RATE, loglevel="FATAL")
    words = {w for p in phrases for w in p.split()}
    for word, phones in ALT_PRONUNCIATIONS.items():
        if word.split("(")[0] in words:
            decoder.add_word(word, phones, True)
    return _decode(decoder, segments)


def transcribe_free(path: str | Path) -> str:
    """Open-vocabulary transcript with the bundled en-us trigram model (for comparison)."""
    from pocketsphinx import Decoder  # noqa: PLC0415

    decoder = Decoder(samprate=RATE, loglevel="FATAL")
    return _decode(decoder, speech_segments(load_pcm(path)))


def candidate_phrases(facts: Iterable) -> list[str]:
    """The phrases an audit passes for a domain: every slot's spoken form ("seventy five
    dollars"), every anchor term and condition value of the facts, in a stable order."""
    from facts.surface import spoken_form  # noqa: PLC0415

    out: list[str] = []
    for f in facts:
        out += [spoken_form(s) for s in f.slots] + list(f.anchors) + [c.value for c in f.conditions]
    return list(dict.fromkeys(p for p in out if p))


def phrase_hits(transcript: str, phrases: Iterable[str]) -> dict[str, int]:
    """How often each (normalised) phrase occurs as whole words in a transcript."""
    text = " " + " ".join(transcript.lower().split()) + " "
    return {p: text.count(f" {normalize(p)} ") for p in phrases}
