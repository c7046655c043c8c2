"""Speech recognition of delivered audio with pocketsphinx 5 (offline, bundled en-us model).

Free transcription (`transcribe_free`, the bundled 130k-word trigram model) is weak on
synthetic voices: numbers come back as look-alike words ("twelve dollars" -> "whale
dollars", "fifty" -> "thirty"). The audits need to know *which value* a recording states, so
`transcribe` restricts recognition to a vocabulary of two parts:

- a **fixed, domain-independent vocabulary** (`FIXED_VOCABULARY`): the words of any spoken
  number, amount, percentage, duration and date (zero to ninety, hundred, thousand, point,
  dollars, cents, percent, minutes, business days, months, ordinals...) and a few hundred
  common words of calls and voice memos, which absorb speech that is not a value instead of
  forcing it onto one;
- the **file's own words**, passed by the caller: the anchors and content words of the facts
  the file carries or distracts, hedge markers, brand words (`audits.extraction`). Nothing
  about any other fact of the domain, so a value edit elsewhere never changes this file's
  recognition, and nothing about the values the file *should* hold.

The bigram language model (ARPA, written per file) gives every word the same unigram
probability; word pairs of a **generic number grammar** ("seventy" -> "five", "five" ->
"dollars", "business" -> "days", "hundred" -> "and"...) and pairs inside the file's phrases
("checked bag", "i was told") get a bigram of `P_PAIR`. No value is favoured over another:
"eighty dollars" is exactly as cheap as "seventy five dollars", so a wrong value is heard as
what it is and the check stays "which value was said".

Speed (see benchmarks/bench_asr.py): the decoder is created once per process (acoustic model,
pronouncing dictionary) and only the small language model changes per file; a pruned
forward pass plus the flat-lexicon pass (no lattice rescoring, no phone-loop lookahead,
top-2 Gaussians, at most `MAX_HMM` active HMMs per frame) on each speech segment (silences
cut by pocketsphinx's VAD segmenter; one transcript line per segment). Feature extraction is
reset per file, so a transcript never depends on what the process decoded before.

Candidates are normalised to speakable words (digits and symbols spelled out, as the
renderers' text-to-speech does); words missing from the pronouncing dictionary are dropped
and a phrase is split around them. The writers' hedge markers ("i was told", "used to be")
are always added, so the transcript keeps what marks a value as wrong or old. Input audio of
any format is converted to 16 kHz mono 16-bit (ffmpeg from imageio-ffmpeg for anything that
is not already such a WAV).
"""
from __future__ import annotations

import io
import math
import re
import subprocess
import tempfile
import wave
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Optional

from transforms.writers import HEDGE_MARKERS

from .audio import speakable


RATE = 16000
EXTERNAL_TOOLS = ("ffmpeg", "pocketsphinx-model")  # see transforms.fingerprint

# Common words of phone calls, voice memos and narrations (they absorb speech that is not a value).
_COMMON = """
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
""".split()

# Everything a spoken value is made of, whatever the domain.
_ONES = "one two three four five six seven eight nine".split()
_TEENS = "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_SCALES = ["hundred", "thousand", "million"]
_UNITS = ("dollars dollar cents cent euros euro pounds pound percent minutes minute hours hour days day "
          "weeks week months month years year nights night").split()
_ORDINALS = "first second third".split()  # "fourth hundred" was heard for "four hundred"
_DATES = ("january february march april may june july august september october november december "
          "monday tuesday wednesday thursday friday saturday sunday").split()
_NUMBER_WORDS = ["zero", *_ONES, *_TEENS, *_TENS, *_SCALES, "point", "and", "a", "half", "quarter", "to",
                 "business", "calendar", *_UNITS, *_ORDINALS, *_DATES]
FIXED_VOCABULARY: tuple[str, ...] = tuple(sorted(set(_COMMON) | set(_NUMBER_WORDS)))


def _number_pairs() -> list[tuple[str, str]]:
    """Word pairs of any spoken number, amount or duration (a generic grammar, no values).
    No range pairs ("four" -> "to" -> "twelve"): they made "valid for twelve months" come back
    as "valid four to twelve months" (a range, not the value); a range a file states is among
    its own phrases."""
    base = _ONES + _TEENS + _TENS
    pairs = [(t, o) for t in _TENS for o in _ONES]
    pairs += [(n, s) for n in base for s in _SCALES + _UNITS + ["point", "business", "calendar", "and"]]
    pairs += [(s, n) for s in _SCALES for n in base + ["and", "thousand", *_UNITS, "business", "calendar"]]
    pairs += [("and", n) for n in base + ["a"]] + [("a", "half"), ("and", "a"), ("half", "hours"), ("half", "percent")]
    pairs += [("point", d) for d in ["zero", *_ONES]] + [(d, e) for d in ["zero", *_ONES] for e in ["zero", *_ONES]]
    pairs += [("business", "days"), ("calendar", "days"), ("business", "day")]
    pairs += [(u, "and") for u in ("dollars", "euros", "pounds")]
    return sorted(set(pairs))


NUMBER_PAIRS: tuple[tuple[str, str], ...] = tuple(_number_pairs())


_DICT_WORD = re.compile(r"^([^\s(]+)(?:\(\d+\))?\s")


def model_path(sub: str = "") -> str:
    from pocketsphinx import get_model_path  # noqa: PLC0415  (heavy; loaded on first use)

    return get_model_path(sub) if sub else get_model_path()


@lru_cache(maxsize=1)
def pronunciations() -> dict[str, tuple[str, ...]]:
    """Word -> its pronunciations (phone strings) in the bundled dictionary (cmudict-en-us)."""
    out: dict[str, list[str]] = {}
    with open(model_path("en-us/cmudict-en-us.dict"), encoding="utf-8") as f:
        for line in f:
            m = _DICT_WORD.match(line)
            if m:
                out.setdefault(m.group(1), []).append(line[m.end():].strip())
    return {w: tuple(p) for w, p in out.items()}


def dictionary_words() -> frozenset[str]:
    """Words of the bundled pronouncing dictionary."""
    return _known()


@lru_cache(maxsize=1)
def _known() -> frozenset[str]:
    return frozenset(pronunciations())


def normalize(phrase: str) -> str:
    """Candidate text -> the words a voice says ("$75" -> "seventy five dollars")."""

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

    return list(HEDGE_MARKERS)


MAX_HMM = 1500  # active HMMs per frame
VALUE_RANK = 50  # number words are as likely as the 50th most probable common word
P_PAIR = 0.3  # bigram probability of a number-grammar pair or a pair inside a file phrase


@lru_cache(maxsize=1)
def common_unigrams() -> dict[str, float]:
    """log10 unigram probabilities of the fixed vocabulary's common words in the bundled
    en-us model (so "the" is likelier than "quill"); number words are not looked up: they all
    get the same probability (`VALUE_RANK`)."""
    from pocketsphinx import Config, LogMath, NGramModel  # noqa: PLC0415  (heavy; loaded on first use)

    logmath = LogMath()
    lm = NGramModel(Config(), logmath, model_path("en-us/en-us.lm.bin"))
    out = {}
    for w in sorted(set(_COMMON) - set(_NUMBER_WORDS)):
        lp = lm.prob([w])
        lp = lp[0] if isinstance(lp, tuple) else lp
        if lp > -10**8:
            out[w] = math.log10(max(logmath.exp(lp), 1e-99))
    return out


def arpa_bigram(phrases: list[str], vocabulary: Iterable[str] = FIXED_VOCABULARY,
                pairs: Iterable[tuple[str, str]] = NUMBER_PAIRS,
                unigrams: Optional[dict[str, float]] = None) -> str:
    """A bigram LM (ARPA text) over `vocabulary` and the phrases' words (those the
    pronouncing dictionary knows). Words in `unigrams` (the common words) get their own
    probability; every other word, number words and the file's words alike, the probability
    of the `VALUE_RANK`-th most probable common word: no value is likelier than another.
    `pairs` and each word pair inside a phrase get a bigram of probability `P_PAIR`; every
    other pair backs off to the unigrams."""
    known = dictionary_words()
    unigrams = common_unigrams() if unigrams is None else unigrams
    vocab = sorted({w for w in vocabulary if w in known} | {w for p in phrases for w in p.split()})
    ranked = sorted(unigrams.values(), reverse=True)
    floor = ranked[min(VALUE_RANK, len(ranked) - 1)] if ranked else math.log10(1.0 / (len(vocab) + 1))
    words = set(vocab)
    bigrams = sorted({(a, b) for a, b in pairs if a in words and b in words}
                     | {(a, b) for p in phrases for a, b in zip(p.split(), p.split()[1:])})
    lines = ["\\data\\", f"ngram 1={len(vocab) + 2}", f"ngram 2={len(bigrams)}", "", "\\1-grams:",
             "-99.0000 <s> 0.0000", f"{floor:.4f} </s> 0.0000"]
    lines += [f"{unigrams.get(w, floor):.4f} {w} 0.0000" for w in vocab]
    lines += ["", "\\2-grams:"] + [f"{math.log10(P_PAIR):.4f} {a} {b}" for a, b in bigrams]
    lines += ["", "\\end\\", ""]
    return "\n".join(lines)


# Extra pronunciations for words espeak-ng says in a way the model's dictionary entry misses:
# after "is", espeak-ng's "twelve" loses its /t/, which the dictionary's only entry does not
# cover, so the recogniser would hear other words ("it's will").
ALT_PRONUNCIATIONS: dict[str, str] = {"twelve(2)": "W EH L V"}


# --- audio in ----------------------------------------------------------------------------
def ffmpeg_exe() -> str:
    import imageio_ffmpeg  # noqa: PLC0415  (heavy; loaded on first use)

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
    return [p for _s, _e, p in timed_segments(pcm)]


def timed_segments(pcm: bytes) -> list[tuple[float, float, bytes]]:
    """Speech regions of the audio (pocketsphinx VAD), in order, with their start and end in
    seconds (the whole audio as one region when the VAD finds none)."""

    from pocketsphinx import Segmenter  # noqa: PLC0415  (heavy; loaded on first use)

    seg = Segmenter(sample_rate=RATE)
    parts = [(s.start_time, s.end_time, s.pcm) for s in seg.segment(io.BytesIO(pcm))]
    return parts or ([(0.0, len(pcm) / 2 / RATE, pcm)] if pcm else [])


# --- decoding ----------------------------------------------------------------------------
def _decode_each(decoder, segments: list[bytes]) -> list[str]:
    """One hypothesis per segment, in order (empty where nothing was heard)."""
    out = []
    for pcm in segments:
        decoder.start_utt()
        decoder.process_raw(pcm, full_utt=True)
        decoder.end_utt()
        hyp = decoder.hyp()
        out.append(" ".join(w for w in (hyp.hypstr.split() if hyp else []) if not w.startswith(("<", "[", "+"))))
    return out


def _decode(decoder, segments: list[bytes]) -> str:
    return joined(_decode_each(decoder, segments))


def joined(hyps: Iterable[str]) -> str:
    """The transcript of per-segment hypotheses: one line per segment that heard anything."""
    return "\n".join(h for h in hyps if h)


# A pruned forward pass and the flat-lexicon second pass; no lattice rescoring, no
# phone-loop lookahead, top-2 Gaussians. The second pass keeps number phrases whole (without
# it "twenty four hours" can come back as "twenty pull are"); recall and seconds per clip:
# benchmarks/bench_asr.py.
DECODER_OPTIONS = dict(fwdflat=True, bestpath=False, pl_window=0, topn=2, maxhmmpf=MAX_HMM, maxwpf=5)


class _Recogniser:
    """The process's decoder: acoustic model loaded once, words added to its dictionary as
    files need them (the search only ever considers the current file's language model)."""

    def __init__(self):
        from pocketsphinx import Decoder  # noqa: PLC0415  (heavy; loaded on first use)

        self.words: set[str] = set()
        with tempfile.TemporaryDirectory() as tmp:
            lm, dic = Path(tmp) / "start.arpa", Path(tmp) / "start.dict"
            lm.write_text(arpa_bigram([]), encoding="utf-8")
            dic.write_text("".join(self._entries(FIXED_VOCABULARY)), encoding="utf-8")
            self.decoder = Decoder(lm=str(lm), dict=str(dic), samprate=RATE, loglevel="FATAL", **DECODER_OPTIONS)
        for word, phones in ALT_PRONUNCIATIONS.items():
            self.decoder.add_word(word, phones, False)

    def _entries(self, words) -> list[str]:
        pron = pronunciations()
        out = []
        for w in sorted(set(words) - self.words):
            for i, ph in enumerate(pron.get(w, ())):
                out.append(f"{w}{'' if i == 0 else f'({i + 1})'} {ph}\n")
            self.words.add(w)
        return out

    def transcribe(self, segments: list[bytes], arpa: str, words) -> list[str]:
        for entry in self._entries(words):
            name, phones = entry.split(" ", 1)
            self.decoder.add_word(name, phones.strip(), False)
        with tempfile.TemporaryDirectory() as tmp:
            lm = Path(tmp) / "file.arpa"
            lm.write_text(arpa, encoding="utf-8")
            self.decoder.add_lm_file("file", str(lm))
        self.decoder.activate_search("file")
        self.decoder.reinit_feat()
        try:
            return _decode_each(self.decoder, segments)
        finally:
            self.decoder.activate_search()
            self.decoder.remove_search("file")


@lru_cache(maxsize=1)
def _recogniser() -> _Recogniser:
    return _Recogniser()


def transcribe(path: str | Path, candidates: list[str]) -> str:
    """Transcript of the audio recognised with the fixed vocabulary plus the file's own
    candidate phrases (see module doc). Without candidates, the free transcription."""
    if not phrases_in_dictionary(list(candidates)):
        return transcribe_free(path)
    return joined(h for _s, _e, h in transcribe_timed(load_pcm(path), candidates))


def transcribe_timed(pcm: bytes, candidates: list[str]) -> list[tuple[float, float, str]]:
    """`transcribe` of 16 kHz mono 16-bit samples, per speech segment: (start, end seconds,
    hypothesis). `joined` of the hypotheses is exactly `transcribe`'s transcript; a recording
    hearing its own audio (`transforms.recordings.hear_back`) maps the segments to its lines."""
    phrases = phrases_in_dictionary(list(candidates))
    phrases = phrases + [p for p in phrases_in_dictionary(hedge_phrases()) if p not in phrases]
    words = {w for p in phrases for w in p.split()}
    segs = timed_segments(pcm)
    hyps = _recogniser().transcribe([p for _s, _e, p in segs], arpa_bigram(phrases), words)
    return [(s, e, h) for (s, e, _p), h in zip(segs, hyps)]


def transcribe_free(path: str | Path) -> str:
    """Open-vocabulary transcript with the bundled en-us trigram model (for comparison)."""
    from pocketsphinx import Decoder  # noqa: PLC0415  (heavy; loaded on first use)

    decoder = Decoder(samprate=RATE, loglevel="FATAL")
    return _decode(decoder, speech_segments(load_pcm(path)))
