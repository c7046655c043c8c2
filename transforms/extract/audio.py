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


@dataclass(frozen=True)
class Voice:
    """An espeak-ng voice: name with variant ("en-us+f2"), words per minute, pitch 0-99."""

    name: str
    wpm: int = 150
    pitch: int = 50
    label: str = ""


# The espeak-ng variants pocketsphinx's en-us model recognises best. Measured on sentences
# carrying 8 values (money, percent, duration, count) mixed with call filler: these
# recognised 8/8 (klatt 7-8/8) with no wrong value; en-us+m1/m3/m6, +f1/f3/f4, plain en-us
# and the British voices lost 1 to 7 values ("twelve" is the hardest word).
FEMALE = (Voice("en-us+f2", 145, 50, "female"), Voice("en-us+f5", 145, 50, "female"))
MALE = (Voice("en-us+klatt", 140, 50, "male"), Voice("en-us+klatt2", 145, 50, "male"),
        Voice("en-us+klatt3", 145, 50, "male"))
LINE = Voice("en-us", 165, 55, "line announcement")


def _espeak(text: str, voice: Voice, out: Path) -> None:
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise FactforgeError("speech synthesis needs the espeak-ng program (Debian/Ubuntu: apt-get install espeak-ng)")
    proc = subprocess.run([exe, "-v", voice.name, "-s", str(voice.wpm), "-p", str(voice.pitch), "-w", str(out),
                           "--", text], capture_output=True, text=True)
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


def telephone(x: np.ndarray, rng_seed: int, noise_db: float = -52.0) -> np.ndarray:
    """A light phone-line colour: gentle high-pass (no rumble), a slight high-frequency
    roll-off and seeded line hiss. Mild on purpose: a hard 300-3400 Hz band costs the
    recogniser most of its accuracy on synthetic voices."""
    if len(x) == 0:
        return x
    f = x.astype(np.float64)
    spec = np.fft.rfft(f)
    freqs = np.fft.rfftfreq(len(f), 1 / RATE)
    gain = 1.0 / np.sqrt(1.0 + (120.0 / np.maximum(freqs, 1.0)) ** 4)   # 2nd-order high-pass, 120 Hz
    gain *= 1.0 / np.sqrt(1.0 + (freqs / 5200.0) ** 4)                 # roll-off above ~5 kHz
    f = np.fft.irfft(spec * gain, len(f))
    rng = np.random.default_rng(rng_seed)
    f += rng.normal(0.0, 32768.0 * 10 ** (noise_db / 20), len(f))
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
    t = re.sub(r"([$€£])\s?(\d[\d,]*(?:\.\d+)?)",
               lambda m: _money_words(m.group(2), _CURRENCY[m.group(1)]), t)
    t = re.sub(r"(\d[\d,]*(?:\.\d+)?)\s?%", lambda m: f"{_num_words(m.group(1))} percent", t)
    t = re.sub(r"\b(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?\b",
               lambda m: _num_words(m.group(0)), t)
    t = t.replace("&", " and ").replace("/", " or ").replace("-", " ")
    t = re.sub(r"[()\[\]{}\"*_#]", " ", t)
    return re.sub(r"\s+([,.:;!?])", r"\1", " ".join(t.split()))
