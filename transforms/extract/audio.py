"""Speech synthesis and WAV helpers for the recordings family.

Text-to-speech calls the `espeak-ng` binary with `-w` (one process per utterance), not
pyttsx3. pyttsx3 2.99's espeak driver writes the file when it sees the end-of-message event
and only then appends that callback's audio chunk to its buffer, after clearing it: each
utterance loses its last chunk and the next file starts with it. Files then depend on what
was synthesised before in the process (measured: 39 of 40 utterances differed from a clean
synthesis), which breaks byte-identical rendering. The binary drives the same libespeak-ng
with the same voice, rate and pitch, and is stateless.

espeak speaks at 22,050 Hz; utterances are resampled to 16 kHz (FFT band-limited resampling,
numpy only) and assembled into 16 kHz mono 16-bit PCM, the format pocketsphinx's model
expects. Everything is deterministic: no dithering, noise only from a seeded generator.

Values must be spoken in words ("$75" -> "seventy five dollars"): `speakable` rewrites money,
percentages, ISO dates and bare numbers so espeak reads them the way the recogniser's
grammar lists them.
"""
from __future__ import annotations

import datetime as dt
import re
import shutil
import subprocess
import tempfile
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np

from facts.errors import FactforgeError
from facts.surface import int_to_words

RATE = 16000
EXTERNAL_TOOLS = ("espeak-ng",)  # see transforms.fingerprint


@dataclass(frozen=True)
class Voice:
    """An espeak-ng voice: name with variant ("en-us+f2"), words per minute, pitch 0-99."""

    name: str
    wpm: int = 150
    pitch: int = 50
    label: str = ""
    gap: int = 0  # extra pause between words, in 10 ms units (espeak -g)


# Voices, chosen by measurement (pocketsphinx en-us model, candidate-restricted decoding):
# 90 writer sentences per voice (statements, voiced paraphrases, hedged wrong values of the
# _mock policy; candidates = every value and wrong value, some confusable: fifteen/fifty,
# twelve/twenty, five/fifteen business days): en-us+f5 recognised 86/90 values with 2 wrong
# ones, en-us+edward2 85/90 (6 wrong), en-us+edward 80/90 (3), en-us+f2 80/90 (7). On
# teen/-ty pairs alone the edward voices do better than the female ones. klatt, m1-m7,
# f1/f3/f4, plain en-us, the named variants (linda, Annie, Andy, zac...) and the British
# voices lost from a third up to all values and are not used.
STAFF_VOICES = (Voice("en-us+f5", 145, 40, "female"),)
CALLER_VOICES = (Voice("en-us+edward", 145, 40, "male"), Voice("en-us+edward2", 145, 50, "male"))
LINE = Voice("en-us", 165, 55, "line announcement")


def _espeak(text: str, voice: Voice, out: Path) -> None:
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise FactforgeError("speech synthesis needs the espeak-ng program (Debian/Ubuntu: apt-get install espeak-ng)")
    proc = subprocess.run([exe, "-v", voice.name, "-s", str(voice.wpm), "-p", str(voice.pitch), "-g", str(voice.gap),
                           "-w", str(out), "--", text], capture_output=True, text=True)
    if proc.returncode != 0 or not out.exists():
        raise FactforgeError(f"espeak-ng failed for voice {voice.name}: {proc.stderr.strip()[:200]}")


def synthesize(text: str, voice: Voice, workdir: Optional[Path] = None) -> np.ndarray:
    """One utterance as 16 kHz int16 samples (leading/trailing silence trimmed)."""
    text = " ".join(text.split())
    if not text:
        return np.zeros(0, np.int16)
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        path = Path(tmp) / "utt.wav"
        _espeak(text, voice, path)
        with wave.open(str(path), "rb") as w:
            rate = w.getframerate()
            x = np.frombuffer(w.readframes(w.getnframes()), np.int16)
    return trim(resample(x, rate, RATE))


def resample(x: np.ndarray, src: int, dst: int) -> np.ndarray:
    """Band-limited resampling by FFT (deterministic, numpy only)."""
    if src == dst or len(x) == 0:
        return x.astype(np.int16)
    n = len(x)
    m = int(round(n * dst / src))
    spec = np.fft.rfft(x.astype(np.float64))
    keep = m // 2 + 1
    spec = spec[:keep] if len(spec) >= keep else np.concatenate([spec, np.zeros(keep - len(spec), complex)])
    y = np.fft.irfft(spec, m) * (m / n)
    return np.clip(np.round(y), -32768, 32767).astype(np.int16)


def trim(x: np.ndarray, threshold: int = 200, margin: int = RATE // 50) -> np.ndarray:
    idx = np.flatnonzero(np.abs(x.astype(np.int32)) > threshold)
    if len(idx) == 0:
        return x[:0]
    return x[max(0, idx[0] - margin): idx[-1] + margin]


def silence(seconds: float) -> np.ndarray:
    return np.zeros(int(round(seconds * RATE)), np.int16)


def telephone(x: np.ndarray, rng_seed: int = 0, noise_db: Optional[float] = None) -> np.ndarray:
    """A light phone-line colour: a 2nd-order high-pass at 120 Hz (no rumble), and seeded line
    hiss when `noise_db` is given. Deliberately no band limit: cutting at 3.4 kHz (or even
    rolling off above 5 kHz) cost the recogniser up to half of the values on synthetic
    voices, and hiss at -58 dBFS already cost some "twelve"s, so the kinds use none."""
    if len(x) == 0:
        return x
    f = x.astype(np.float64)
    freqs = np.fft.rfftfreq(len(f), 1 / RATE)
    gain = 1.0 / np.sqrt(1.0 + (120.0 / np.maximum(freqs, 1.0)) ** 4)
    f = np.fft.irfft(np.fft.rfft(f) * gain, len(f))
    if noise_db is not None:
        f += np.random.default_rng(rng_seed).normal(0.0, 32768.0 * 10 ** (noise_db / 20), len(f))
    return np.clip(np.round(f), -32768, 32767).astype(np.int16)


def write_wav(path: Path, samples: np.ndarray, rate: int = RATE) -> None:
    """Plain PCM WAV: no LIST/INFO chunk, so nothing but the samples varies."""
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(np.asarray(samples, np.int16).tobytes())


def duration(samples: np.ndarray) -> float:
    return len(samples) / RATE


# --- text a voice can read -------------------------------------------------------------
_CURRENCY = {"$": "dollars", "€": "euros", "£": "pounds"}
_ORDINALS = {1: "first", 2: "second", 3: "third", 5: "fifth", 8: "eighth", 9: "ninth", 12: "twelfth"}


def ordinal_words(n: int) -> str:
    if n in _ORDINALS:
        return _ORDINALS[n]
    if n < 20:
        return int_to_words(n) + "th"
    tens, ones = divmod(n, 10)
    if ones == 0:
        return int_to_words(n)[:-1] + "ieth"
    return int_to_words(tens * 10) + " " + ordinal_words(ones)


def spoken_date(day: dt.date) -> str:
    return f"{day:%B} {ordinal_words(day.day)}"


def _num_words(s: str) -> str:
    s = s.replace(",", "")
    whole, _, frac = s.partition(".")
    out = int_to_words(int(whole), " ")
    if frac.strip("0"):
        out += " point " + " ".join(int_to_words(int(c)) for c in frac)
    return out


def _money_words(amount: str, unit: str) -> str:
    amount = amount.replace(",", "")
    whole, _, frac = amount.partition(".")
    out = f"{int_to_words(int(whole), ' ')} {unit}"
    if frac.strip("0"):
        out += f" and {int_to_words(int((frac + '0')[:2]), ' ')} cents"
    return out


def speakable(text: str) -> str:
    """Rewrite symbols and digits as words: "$75" -> "seventy five dollars", "20%" ->
    "twenty percent", "2026-03-02" -> "March second", "5" -> "five"."""
    def date(m: re.Match) -> str:
        try:
            return spoken_date(dt.date.fromisoformat(m.group(0)))
        except ValueError:
            return m.group(0)

    t = re.sub(r"\b\d{4}-\d{2}-\d{2}\b", date, text)
    num = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
    t = re.sub(rf"([$€£])\s?({num})",
               lambda m: _money_words(m.group(2), _CURRENCY[m.group(1)]), t)
    t = re.sub(rf"({num})\s?%", lambda m: f"{_num_words(m.group(1))} percent", t)
    t = re.sub(r"\b(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?\b",
               lambda m: _num_words(m.group(0)), t)
    t = t.replace("&", " and ").replace("/", " or ").replace("-", " ")
    t = re.sub(r"[()\[\]{}\"*_#]", " ", t)
    return re.sub(r"\s+([,.:;!?])", r"\1", " ".join(t.split()))
