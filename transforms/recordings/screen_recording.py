"""Screen recording (.mp4) of a narrated walkthrough of the company's internal policy tool:
browser chrome, the app's header and sidebar, and one screen per fact with the rule shown as
a large card (value next to its anchor terms) while a synthetic voice reads it. An older or
rumoured value appears first on a "change history" or "customer note" card, hedged, before
the current card. 960x540, 2 frames per second, H.264 + AAC, rendered byte-identically
(ffmpeg bitexact flags, one thread, no metadata)."""
from __future__ import annotations

import datetime as dt
import math
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from facts.surface import surface_forms
from transforms import clock as CK, common as C, headings, records as RC
from transforms.base import ExtractContext, Extraction, RenderContext, Transformer
from transforms.extract import audio as A
from transforms.extract.asr import ffmpeg_exe
from transforms.extract.video import extract_mp4_timed
from transforms.plan import ArtifactSpec
from transforms.registry import register

from . import script as S
from .hear_back import Hearing, Line, reworded


W, H = 960, 540
FPS = 2
FFMPEG_PARAMS = ["-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact", "-map_metadata", "-1",
                 "-tune", "stillimage", "-b:a", "48k", "-ar", "16000", "-ac", "1"]
_PALETTE = [(22, 64, 120), (17, 94, 89), (91, 33, 112), (30, 58, 95), (12, 84, 52), (120, 53, 15)]
INK, MUTED, LINE, PAGE = (28, 34, 46), (90, 99, 115), (214, 220, 230), (244, 246, 250)

_INTRO = ["Hi everyone, {manager} here. This is a quick walkthrough of the {section} page in the {app}.",
          "Hello team. In this recording I'll show you where to find the {section} rules in the {app}.",
          "Hi all, it's {manager}. Let me walk you through the updated {section} page before your next shift."]
_OLD_LEAD = ["First, the change history. ", "Here's the old entry, for context. ",
             "You may remember this from the change log. "]
_NOTE_LEAD = ["Some of you asked about this one. ", "This came up on a few calls. "]
_OUTRO = ["That's everything. The page is live now, so please use it on calls. Thanks.",
          "And that's it. Bookmark this page and check it before quoting anything. Thanks everyone.",
          "That's the walkthrough. Ping me on the team channel if anything is unclear."]
_NOISE = ["Here's the home page with the latest announcements.", "This is where you'll find the shift calendar.",
          "And the team directory is under Resources."]


@lru_cache(maxsize=32)
def _font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(C.font_file("sans", bold), size)


_NBSP = "\u00a0"


def _wrap(text: str, fnt: ImageFont.FreeTypeFont, width: int, keep: tuple[str, ...] = ()) -> list[str]:
    """Greedy word wrap by pixel width; the phrases in `keep` (values such as "5 business
    days") are never split across lines, so OCR reads them whole."""
    for k in sorted(keep, key=len, reverse=True):
        if " " in k:
            text = text.replace(k, k.replace(" ", _NBSP))
    lines, cur = [], ""
    for word in text.split(" "):
        if not word:
            continue
        trial = f"{cur} {word}" if cur else word
        if fnt.getlength(trial) <= width or not cur:
            cur = trial
        else:
            lines.append(cur)
            cur = word
    return [ln.replace(_NBSP, " ") for ln in lines + ([cur] if cur else [])]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "home"


@dataclass
class Screen:
    """One screen state of the recording and what the narrator says over it."""

    page: str                 # sidebar entry / page title
    kind: str                 # "home", "current", "old", "note"
    card_title: str = ""
    card_big: str = ""
    card_body: str = ""
    footer: str = ""
    narration: list[str] = field(default_factory=list)
    # per narration text: (facts whose values it says, role, the writer's other phrasing)
    speech: list[tuple] = field(default_factory=list)
    cursor: tuple[int, int] = (700, 300)
    keep: tuple[str, ...] = ()  # value phrases never wrapped across lines


class _Painter:
    def __init__(self, ctx: RenderContext, pages: list[str], manager: str, day: dt.date):
        b = ctx.pack.brand
        self.company = b.company
        self.short = b.short_name or b.company.split()[0]
        self.host = f"hub.{b.email_domain}"
        self.app = f"{self.short} Policy Hub"
        self.brand = _PALETTE[sum(map(ord, b.company)) % len(_PALETTE)]
        self.pages = pages
        self.manager = manager
        self.day = day

    def paint(self, s: Screen) -> Image.Image:
        img = Image.new("RGB", (W, H), PAGE)
        d = ImageDraw.Draw(img)
        # browser chrome: tab strip, address bar, recording badge
        d.rectangle((0, 0, W, 30), fill=(222, 225, 230))
        d.rounded_rectangle((10, 5, 250, 34), radius=7, fill=(248, 249, 251))
        tab = f"{s.page} - {self.app}"
        d.text((22, 11), tab if len(tab) <= 34 else tab[:32] + "...", font=_font(12), fill=INK)
        d.rectangle((0, 30, W, 62), fill=(248, 249, 251))
        d.rounded_rectangle((80, 36, W - 120, 57), radius=10, fill=(233, 236, 241))
        d.text((96, 39), f"https://{self.host}/policies/{_slug(s.page)}", font=_font(13), fill=MUTED)
        for i, c in enumerate([(236, 95, 90), (245, 190, 80), (98, 197, 85)]):
            d.ellipse((14 + i * 18, 42, 26 + i * 18, 54), fill=c)
        d.ellipse((W - 100, 41, W - 88, 53), fill=(220, 38, 38))
        d.text((W - 82, 39), "REC", font=_font(13, True), fill=(220, 38, 38))
        # app header
        d.rectangle((0, 62, W, 104), fill=self.brand)
        d.text((20, 72), self.app, font=_font(20, True), fill=(255, 255, 255))
        initials = "".join(p[0] for p in self.manager.split()[:2]).upper()
        d.ellipse((W - 52, 70, W - 22, 100), fill=(255, 255, 255))
        d.text((W - 45, 77), initials, font=_font(13, True), fill=self.brand)
        d.text((W - 250, 76), "Search policies...", font=_font(14), fill=(210, 220, 235))
        # sidebar
        d.rectangle((0, 104, 190, H), fill=(255, 255, 255))
        d.line((190, 104, 190, H), fill=LINE)
        y = 120
        for p in ["Home"] + self.pages + ["Change log", "Team directory"]:
            if p == s.page:
                d.rectangle((0, y - 6, 189, y + 24), fill=(232, 238, 248))
                d.rectangle((0, y - 6, 4, y + 24), fill=self.brand)
            d.text((18, y), p[:20], font=_font(15, p == s.page), fill=INK if p == s.page else MUTED)
            y += 36
        # page
        x0 = 220
        d.text((x0, 118), f"Policies  /  {s.page}", font=_font(13), fill=MUTED)
        d.text((x0, 140), s.page, font=_font(28, True), fill=INK)
        if s.kind == "home":
            self._home(d, x0, s)
        else:
            self._card(img, d, x0, s)
        self._cursor(d, *s.cursor)
        return img

    def _home(self, d: ImageDraw.ImageDraw, x0: int, s: Screen) -> None:
        d.text((x0, 190), s.card_body or "Recently updated", font=_font(17, True), fill=INK)
        y = 225
        for i, p in enumerate(self.pages + ["Holiday schedule", "Office hours"]):
            when = self.day - dt.timedelta(days=i * 3 + 1)
            d.rounded_rectangle((x0, y, W - 30, y + 44), radius=8, fill=(255, 255, 255), outline=LINE)
            d.text((x0 + 16, y + 12), p, font=_font(16, True), fill=INK)
            d.text((W - 230, y + 14), f"Updated {when:%b %d, %Y}", font=_font(13), fill=MUTED)
            y += 54
            if y > H - 60:
                break

    def _card(self, img: Image.Image, d: ImageDraw.ImageDraw, x0: int, s: Screen) -> None:
        badge, colour = {"current": ("CURRENT", (21, 128, 61)), "old": ("SUPERSEDED", (120, 120, 120)),
                         "note": ("CUSTOMER NOTE - NOT POLICY", (180, 83, 9))}[s.kind]
        x1, y0 = W - 30, 192
        big, body = _font(30, True), _font(19)
        big_lines = _wrap(s.card_big, big, x1 - x0 - 48, s.keep)
        body_lines = _wrap(s.card_body, body, x1 - x0 - 48, s.keep)
        y1 = min(H - 50, y0 + 64 + 42 * len(big_lines) + 28 * len(body_lines) + 20)
        d.rounded_rectangle((x0 + 2, y0 + 4, x1 + 2, y1 + 5), radius=12, fill=(226, 230, 237))
        d.rounded_rectangle((x0, y0, x1, y1), radius=12, fill=(255, 255, 255), outline=LINE)
        d.rectangle((x0, y0 + 10, x0 + 6, y1 - 10), fill=colour)
        bw = int(_font(13, True).getlength(badge)) + 20
        d.rounded_rectangle((x0 + 24, y0 + 16, x0 + 24 + bw, y0 + 40), radius=11, fill=colour)
        d.text((x0 + 34, y0 + 20), badge, font=_font(13, True), fill=(255, 255, 255))
        d.text((x0 + 40 + bw, y0 + 20), s.card_title, font=_font(14), fill=MUTED)
        y = y0 + 56
        for ln in big_lines:
            d.text((x0 + 24, y), ln, font=big, fill=INK if s.kind != "old" else MUTED)
            y += 42
        y += 8
        for ln in body_lines:
            if y > H - 80:
                break
            d.text((x0 + 24, y), ln, font=body, fill=INK)
            y += 28
        d.text((x0, min(H - 36, y1 + 16)), s.footer, font=_font(13), fill=MUTED)

    @staticmethod
    def _cursor(d: ImageDraw.ImageDraw, x: int, y: int) -> None:
        d.polygon([(x, y), (x, y + 22), (x + 6, y + 17), (x + 11, y + 27), (x + 15, y + 25), (x + 10, y + 15),
                   (x + 18, y + 15)], fill=(255, 255, 255), outline=(0, 0, 0))


@register
class ScreenRecording(Transformer):
    family = "recordings"
    kind = "screen_recording"
    ext = ".mp4"
    modality = "mp4"
    max_facts = 3
    weight = 0.5
    description = "Narrated screen recording of the internal policy tool (MP4, H.264 + AAC, 960x540, 2 fps)."

    def render(self, spec: ArtifactSpec, ctx: RenderContext, out: Path) -> None:
        rng = spec.rng("screen")
        w = ctx.writer
        its, orphans = C.items(spec, ctx)
        day = CK.spec_date(spec)
        manager = RC.staff(ctx, rng, "manager", 1)[0]
        voice = S.staff_voice(rng)
        pages = list(dict.fromkeys(headings.section_of(it.fact) for it in its)) or ["Announcements"]
        painter = _Painter(ctx, pages, manager, day)
        ref = f"POL-{painter.short[:3].upper()}"
        subs = dict(manager=manager, section=pages[0], app=painter.app)

        def cur() -> tuple[int, int]:  # resting in the sidebar or below the card, never on text
            return (rng.randint(40, 150), rng.randint(330, 480)) if rng.random() < 0.5 else \
                (rng.randint(560, 900), rng.randint(470, 500))

        screens = [Screen("Home", "home", card_body="Recently updated",
                          narration=[rng.choice(_INTRO).format(**subs)], cursor=cur())]
        if not its:
            for t in rng.sample(_NOISE, 2):
                screens.append(Screen("Home", "home", card_body="Announcements", narration=[t], cursor=cur()))
        for it in its:
            f, page = it.fact, headings.section_of(it.fact)
            old = False
            for d in it.superseded:
                on = CK.earlier_day(d, day, rng, 7, 60)
                text = C.hedged(ctx, f, d, rng, role="colleague", on=on)
                lead = rng.choice(_OLD_LEAD)
                screens.append(Screen(page, "old", card_title=f"Version of {on:%b %d, %Y}",
                                      card_big=f"Superseded: {d.text}",
                                      card_body=text, footer="Archived entry - replaced by the current version",
                                      narration=[lead + text], cursor=cur(), keep=(d.text,),
                                      speech=[((f,), "wrong", lambda r, f=f, d=d, on=on, lead=lead:
                                               lead + C.hedged(ctx, f, d, r, role="colleague", on=on))]))
                old = True
            for d in it.wrong:
                text = C.hedged(ctx, f, d, rng, role="customer")
                lead = rng.choice(_NOTE_LEAD)
                screens.append(Screen(page, "note", card_title="Frequently heard on calls", card_big=text,
                                      footer="Customer belief - not correct, see the current rule",
                                      narration=[lead + text], cursor=cur(), keep=(d.text,),
                                      speech=[((f,), "wrong", lambda r, f=f, d=d, lead=lead:
                                               lead + C.hedged(ctx, f, d, r, role="customer"))]))
                old = True
            said = C.authoritative(ctx, it, rng, after_wrong=old, register="kb")
            screens.append(Screen(page, "current", card_title=f"{ref}-{f.source.start_line:03d}",
                                  card_big=w.bullet(f), card_body=w.statement(f, "canonical", rng, register="kb"),
                                  footer=f"Effective {day:%b %d, %Y}  -  Owner: {manager}",
                                  narration=[said], cursor=cur(),
                                  keep=tuple(x for sl in f.slots for x in surface_forms(sl)),
                                  speech=[((f,), "state", lambda r, it=it, old=old:
                                           C.authoritative(ctx, reworded(it), r, after_wrong=old, register="kb"))]))
        for f, d in orphans:
            on = CK.earlier_day(d, day, rng, 7, 60)
            text = C.hedged(ctx, f, d, rng, role="customer", on=on)
            screens.append(Screen(headings.section_of(f), "note", card_title="Open question", card_big=text,
                                  footer="Being checked with the policy owner", narration=[text], cursor=cur(),
                                  keep=(d.text,), speech=[((f,), "wrong", lambda r, f=f, d=d, on=on:
                                                           C.hedged(ctx, f, d, r, role="customer", on=on))]))
        screens.append(Screen("Home", "home", card_body="Recently updated", narration=[rng.choice(_OUTRO)],
                              cursor=cur()))

        facts_all = tuple(ctx.fact(m.fact_id) for m in spec.facts) if not spec.noise else ()

        def say(text: str, _facts=()) -> str:  # the narrator's values, whichever line says them
            return S.say(text, facts_all)

        lines, owner = [], []
        for k, s in enumerate(screens):
            for j, t in enumerate(s.narration):
                facts, role, reword = s.speech[j] if j < len(s.speech) else ((), "", None)
                lines.append(Line("narrator", voice, say(t), facts=facts, role=role, reword=reword))
                owner.append(k)
        hearing = Hearing(spec, ctx, ctx.workdir)

        def write(lines: list[Line], dest: Path) -> list[tuple[float, float]]:
            spoken = [[hearing.synth(ln.text, ln.voice) for ln, o in zip(lines, owner) if o == k]
                      for k in range(len(screens))]
            return self._write(screens, spoken, painter, ctx, dest)

        hearing.deliver(lines, write, out, say)

    def _write(self, screens: list[Screen], spoken: list[list[np.ndarray]], painter: _Painter, ctx: RenderContext,
               out: Path) -> list[tuple[float, float]]:
        """Write the video; returns each narration line's (start, end) seconds in it."""
        from moviepy import ImageClip, concatenate_videoclips  # noqa: PLC0415  (heavy; loaded on first use)

        audio, clips, spans = [], [], []
        t0 = 0.0
        for s, said in zip(screens, spoken):
            speech = np.concatenate(said)
            frames = max(2 * FPS, math.ceil((A.duration(speech) + 0.9) * FPS))
            seconds = frames / FPS
            track = np.zeros(int(round(seconds * A.RATE)), np.int16)
            lead = int(0.4 * A.RATE)
            track[lead:lead + len(speech)] = speech[: len(track) - lead]
            at = t0 + lead / A.RATE
            for x in said:
                spans.append((at, at + A.duration(x)))
                at += A.duration(x)
            t0 += len(track) / A.RATE
            audio.append(track)
            clips.append(ImageClip(np.asarray(painter.paint(s))).with_duration(seconds))
        with tempfile.TemporaryDirectory(dir=ctx.workdir) as tmp:
            wav, mp4 = Path(tmp) / "narration.wav", Path(tmp) / "video.mp4"
            A.write_wav(wav, np.concatenate(audio))
            video = concatenate_videoclips(clips, method="chain")
            video.write_videofile(str(mp4), fps=FPS, codec="libx264", audio=str(wav), audio_codec="aac",
                                  preset="medium", threads=1, ffmpeg_params=FFMPEG_PARAMS, logger=None)
            video.close()
            # moviepy pipes frames while ffmpeg reads the audio file, so how the two streams'
            # packets are interleaved in the container can depend on timing (seen under load:
            # identical streams, 32 bytes of container differing). Remuxing from one file
            # interleaves by timestamp alone: byte-identical output.
            subprocess.run([ffmpeg_exe(), "-nostdin", "-loglevel", "error", "-y", "-i", str(mp4), "-map", "0",
                            "-c", "copy", "-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact",
                            "-map_metadata", "-1", "-movflags", "+faststart", "-f", "mp4", str(out)], check=True)
        return spans

    def extract(self, path: Path, ctx: ExtractContext) -> Extraction:
        return self.hear(path, ctx)[0]

    def hear(self, path: Path, ctx: ExtractContext, ocr=None) -> tuple[Extraction, list]:
        """`extract` with the audio's speech segments (the recording hearing itself: `hear_back`);
        `ocr`: the OCR function for frames (a memo of it)."""
        frames, audio, segments = extract_mp4_timed(path, ctx.candidates, ocr=ocr)
        return Extraction(text=f"{frames}\n\n{audio}".strip(), extractor="ocr-frames+asr-pocketsphinx",
                          parts={"frames": frames, "audio": audio}), segments
