"""Text of an MP4 screen recording: OCR of its frames and speech recognition of its audio.

Frames are sampled at one per second with ffmpeg (imageio-ffmpeg's binary); consecutive
samples showing the same screen (mean absolute difference of a downscaled grey image below
a small threshold, so encoder noise does not count as a change) are OCRed once. The audio
track is converted to 16 kHz mono WAV and recognised with `transforms.extract.asr`.
"""
from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path
from typing import Callable, Optional

from .asr import ffmpeg_exe, joined, load_pcm, phrases_in_dictionary, to_wav16k, transcribe_free, transcribe_timed
from .ocr import ocr_image


EXTERNAL_TOOLS = ("ffmpeg",)  # see transforms.fingerprint


def sample_frames(path: str | Path, every: float = 1.0) -> list:
    """One PIL image per `every` seconds of the video, in order."""
    from PIL import Image  # noqa: PLC0415  (heavy; loaded on first use)

    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([ffmpeg_exe(), "-nostdin", "-loglevel", "error", "-i", str(path), "-an",
                        "-vf", f"fps=1/{every:g}", str(Path(tmp) / "f%05d.png")], check=True)
        frames = []
        for p in sorted(Path(tmp).glob("f*.png")):
            with Image.open(p) as im:
                frames.append(im.convert("RGB"))
    return frames


def distinct_screens(frames: list, threshold: float = 2.0) -> list:
    """Drop frames that repeat the previous screen."""
    import numpy as np  # noqa: PLC0415  (heavy; loaded on first use)

    out, last = [], None
    for im in frames:
        small = np.asarray(im.convert("L").resize((im.width // 4, im.height // 4)), dtype=np.float32)
        if last is None or float(np.abs(small - last).mean()) > threshold:
            out.append(im)
        last = small
    return out


def extract_mp4(path: str | Path, candidates: list[str]) -> tuple[str, str]:
    """(frames_text, audio_text) of a video: OCR of each distinct screen (separated by blank
    lines), and the audio transcript (restricted to `candidates` when given)."""
    frames_text, audio_text, _segments = extract_mp4_timed(path, candidates)
    return frames_text, audio_text


def extract_mp4_timed(path: str | Path, candidates: list[str], ocr: Optional[Callable] = None
                      ) -> tuple[str, str, list[tuple[float, float, str]]]:
    """`extract_mp4` plus the audio's speech segments (start, end seconds, hypothesis) when
    it is recognised with `candidates` (empty otherwise). `ocr(image)`: the OCR function
    (default `ocr.ocr_image`; a recording hearing itself passes a memo of it)."""

    ocr = ocr or ocr_image
    screens = distinct_screens(sample_frames(path))
    frames_text = "\n\n".join(t.strip() for t in (ocr(im) for im in screens) if t.strip())
    if not has_audio(path):
        return frames_text, "", []
    with tempfile.TemporaryDirectory() as tmp:
        wav = Path(tmp) / "audio.wav"
        to_wav16k(Path(path), wav)
        if candidates and phrases_in_dictionary(list(candidates)):
            segments = transcribe_timed(load_pcm(wav), candidates)
            return frames_text, joined(h for _s, _e, h in segments), segments
        return frames_text, transcribe_free(wav), []


def streams(path: str | Path) -> list[str]:
    """Stream descriptions ffmpeg reports for a media file ("Video: h264 ...", "Audio: aac ...")."""
    proc = subprocess.run([ffmpeg_exe(), "-nostdin", "-hide_banner", "-i", str(path)], capture_output=True, text=True)
    return [ln.split(": ", 1)[1].strip() for ln in proc.stderr.splitlines()
            if ln.strip().startswith("Stream #") and ": " in ln]


def has_audio(path: str | Path) -> bool:
    return any(s.startswith("Audio:") for s in streams(path))
