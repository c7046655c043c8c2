"""Speech recognition of delivered audio with pocketsphinx 5 (offline, bundled en-us model).

Free transcription (`transcribe_free`, the bundled 130k-word trigram model) is weak on
synthetic voices: numbers come back as look-alike words ("twelve" -> "whale"). The audits
only need to know *which of the domain's values* a recording states, so `transcribe`
restricts recognition to the candidate phrases the caller passes (the domain's values in
spoken form, "seventy five dollars", plus anchor terms) inside a background vocabulary:

- a bigram language model is written on the fly (ARPA): every word of the background list
  (common conversational words, number words, months) and of the candidates has the same
  unigram probability; the word pairs inside each candidate phrase get a strong bigram, so
  a phrase is cheap to recognise as a whole but gets no advantage over the background when
  it was not said;
- the decoder then has to choose between the candidates acoustically ("fifty dollars" vs
  "forty dollars"), while speech that is not a candidate is absorbed by background words
  instead of being forced onto a candidate (which a grammar of candidates alone would do);
- audio is split at silences (pocketsphinx's VAD segmenter) and each speech segment is
  decoded as its own utterance; the transcript has one line per segment.

Candidates are normalised to speakable words (digits and symbols spelled out, as the
renderers' text-to-speech does); words missing from the pronouncing dictionary are dropped
and a phrase is split around them. Input audio of any format is converted to 16 kHz mono
16-bit (ffmpeg from imageio-ffmpeg for anything that is not already such a WAV).
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


def arpa_bigram(phrases: list[str], background: Iterable[str], p_phrase: float = 0.3) -> str:
    """A bigram LM (ARPA text): flat unigrams over the vocabulary, a bigram of probability
    `p_phrase` for each word pair inside a phrase; every other pair backs off to the flat
    unigram."""
    known = dictionary_words()
    vocab = sorted({w for w in background if w in known} | {w for p in phrases for w in p.split()})
    pairs = sorted({(a, b) for p in phrases for a, b in zip(p.split(), p.split()[1:])})
    uni = math.log10(1.0 / (len(vocab) + 1))
    lines = ["\\data\\", f"ngram 1={len(vocab) + 2}", f"ngram 2={len(pairs)}", "", "\\1-grams:",
             "-99.0000 <s> 0.0000", f"{uni:.4f} </s> 0.0000"]
    lines += [f"{uni:.4f} {w} 0.0000" for w in vocab]
    lines += ["", "\\2-grams:"] + [f"{math.log10(p_phrase):.4f} {a} {b}" for a, b in pairs]
    lines += ["", "\\end\\", ""]
    return "\n".join(lines)


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


def transcribe(path: str | Path, candidates: list[str]) -> str:
    """Transcript of the audio recognised against the candidate phrases (see module doc).
    Without candidates, the free transcription."""
    phrases = phrases_in_dictionary(list(candidates))
    if not phrases:
        return transcribe_free(path)
    phrases = phrases + [p for p in phrases_in_dictionary(hedge_phrases()) if p not in phrases]
    from pocketsphinx import Decoder  # noqa: PLC0415

    segments = speech_segments(load_pcm(path))
    with tempfile.TemporaryDirectory() as tmp:
        lm = Path(tmp) / "candidates.arpa"
        lm.write_text(arpa_bigram(phrases, _BACKGROUND), encoding="utf-8")
        decoder = Decoder(lm=str(lm), samprate=RATE, loglevel="FATAL")
    return _decode(decoder, segments)


def transcribe_free(path: str | Path) -> str:
    """Open-vocabulary transcript with the bundled en-us trigram model (for comparison)."""
    from pocketsphinx import Decoder  # noqa: PLC0415

    decoder = Decoder(samprate=RATE, loglevel="FATAL")
    return _decode(decoder, speech_segments(load_pcm(path)))


def phrase_hits(transcript: str, phrases: Iterable[str]) -> dict[str, int]:
    """How often each (normalised) phrase occurs as whole words in a transcript."""
    text = " " + " ".join(transcript.lower().split()) + " "
    return {p: text.count(f" {normalize(p)} ") for p in phrases}
