"""visuals/slide_deck: a training / briefing deck exported as one PNG of stacked 1280x720
slides (thin dark gap between slides, like a slide sorter export).

Title slide (with a "since the last version" box naming earlier values; rumours are never drawn:
the planner gives them to conversations), content slides with at most three bullets each (bullet
"label: value" and the full statement; the items of one list under their lead once), and a closing "Questions?" slide; slide numbers and
footer on every slide. Fact-bearing text is
dark on white, >= 24 px. Up to 9 facts: 3 content slides, 5 slides in all. Recovered by OCR.
"""
from __future__ import annotations

import datetime as dt
import random
from pathlib import Path

from PIL import Image, ImageDraw

from transforms.clock import fmt_date, spec_date
from transforms.common import Content, Item, check_capacity, is_name, merge_lists, plan_content, protect
from transforms.headings import names_subject, section_of, section_topic, topic_of

from ..base import ExtractContext, Extraction, RenderContext, Transformer
from ..grammar import say
from ..plan import ArtifactSpec
from ..reading import read
from ..registry import register
from ..smalltalk import spoken_topic
from .canvas import INK, MUTED, WHITE, brand_colors, font, ocr_text, save_png, text_block


SW, SH, GAP = 1280, 720, 16
PAD = 72
PER_SLIDE = 3
_DECK = ["{sec} briefing", "{sec}: what's changing", "Team training: {sec}", "{sec} refresher",
         "Policy update: {sec}"]
_NOISE_SLIDES = [("Agenda", ["Welcome and introductions", "Team updates", "Tools and resources", "Open floor"]),
                 ("Team updates", ["New starters join the team next month", "The shared calendar is now live",
                                   "Thanks to everyone who joined the onboarding buddy scheme"])]


@register
class SlideDeck(Transformer):
    family = "visuals"
    kind = "slide_deck"
    ext = ".png"
    modality = "png"
    max_facts = 9
    rumours = False  # a slide states the current rules; wrong values people believe go to conversations
    weight = 0.8
    description = "Briefing deck as one PNG of stacked 16:9 slides: title, content slides, Questions? (OCR)."

    def render(self, spec: ArtifactSpec, ctx: RenderContext, out: Path) -> None:
        check_capacity(spec, self.max_facts)
        rng = spec.rng("slide_deck")
        content = plan_content(spec, ctx, rng, role="colleague", register="slide")
        slides = _slides(spec, ctx, content, rng)
        img = Image.new("RGB", (SW, SH * len(slides) + GAP * (len(slides) - 1)), (58, 64, 76))
        for i, s in enumerate(slides):
            img.paste(s, (0, i * (SH + GAP)))
        save_png(img, out)

    def extract(self, path: Path, ctx: ExtractContext) -> Extraction:
        # bullets are solid squares: painted out before OCR (it reads them as "a", "m")
        return Extraction(text=ocr_text(path, marks=True), extractor="ocr-tesseract-psm3-marks")


# The classification line of a deck's template (on its title slide; content slides carry the
# company and the slide number only).
_CLASS = ["{Internal|Internal use only|Confidential|Staff only|For internal briefing}{ — do not forward| — not for "
          "customers| — please don't share outside the team| — <team>|}"]


def _chrome(d: ImageDraw.ImageDraw, ctx: RenderContext, num: int, dark, label: str = "") -> None:
    brand = ctx.pack.brand
    d.line((PAD, SH - 58, SW - PAD, SH - 58), fill=(222, 226, 232), width=1)
    d.text((PAD, SH - 34), brand.short_name or brand.company, font=font(16, True), fill=MUTED, anchor="lm")
    if label:
        d.text((SW // 2, SH - 34), label, font=font(15), fill=MUTED, anchor="mm")
    d.text((SW - PAD, SH - 34), str(num), font=font(18, True), fill=dark, anchor="rm")


def _block_h(head: str, body: str, width: int) -> int:
    if not head:
        return text_block(None, 0, 0, body, font(28), None, width, 1.25) + 30
    return (text_block(None, 0, 0, head, font(30, True), None, width, 1.2)
            + 8 + text_block(None, 0, 0, body, font(24), None, width, 1.3) + 30)


def _content_pages(spec: ArtifactSpec, ctx: RenderContext, items: list, facts: list,
                   width: int) -> list[tuple[str, list[tuple[str, str]]]]:
    """The content slides' titles and blocks: facts spread evenly, at most PER_SLIDE per
    slide, within the slide height."""
    pages: list[tuple[str, list[tuple[str, str]]]] = []
    if spec.noise:
        for title, bullets in _NOISE_SLIDES:
            pages.append((title, [(b, "") for b in bullets]))
    else:
        room = SH - 170 - 80
        # bullets without a head: the items of one list under their lead once (`merge_lists`)
        heads = [_head(it) for it in items]
        blocks = [([items[i] for i in idx], heads[idx[0]], protect(text, facts)) for idx, text in merge_lists(
            [it.text for it in items], facts, ctx.pack.info.currency,
            keys=[f"#{i}" if h else "" for i, h in enumerate(heads)])]
        n_pages = -(-len(blocks) // PER_SLIDE)
        base, extra = divmod(len(blocks), n_pages) if blocks else (0, 0)
        i = 0
        for p in range(n_pages):
            chunk = blocks[i: i + base + (1 if p < extra else 0)]
            i += len(chunk)
            cur: list[tuple] = []
            used = 0
            for b in chunk:  # split further only if the statements are too long for one slide
                h = _block_h(b[1], b[2], width)
                if cur and used + h > room:
                    pages.append(_page(cur))
                    cur, used = [], 0
                cur.append(b)
                used += h
            if cur:
                pages.append(_page(cur))
    return pages


def _closing_slide(ctx: RenderContext, presenter: str, date: dt.date, dark, number: int,
                   rng: random.Random) -> Image.Image:
    """The closing slide: questions, the presenter's address and the next session's date."""
    w = ctx.writer
    s = Image.new("RGB", (SW, SH), WHITE)
    d = ImageDraw.Draw(s)
    d.rectangle((0, 0, SW, 16), fill=dark)
    d.text((SW // 2, 290), "Questions?", font=font(64, True), fill=INK, anchor="mm")
    d.text((SW // 2, 380), f"{presenter}  |  {w.email(presenter)}", font=font(24), fill=MUTED, anchor="mm")
    nxt = date + dt.timedelta(days=rng.choice([7, 14, 28]))
    d.text((SW // 2, 430), f"Next session: {fmt_date(nxt)}", font=font(22), fill=MUTED, anchor="mm")
    _chrome(d, ctx, number, dark)
    return s


def _slides(spec: ArtifactSpec, ctx: RenderContext, content: Content, rng: random.Random) -> list[Image.Image]:
    brand, w = ctx.pack.brand, ctx.writer
    dark, tint = brand_colors(brand.company)
    date = spec_date(spec)
    items = content.items
    facts = [it.fact for it in items]
    secs = list(dict.fromkeys(section_of(it.fact, "Policy") for it in items))
    presenter = w.person(rng, "manager")
    # the deck is named for its topic, never just the section name its first slide carries
    deck = (rng.choice(["Team meeting", "Monthly all-hands", "Ops sync"]) if spec.noise and not spec.title
            else rng.choice(_DECK).format(sec=" / ".join(section_topic(t) for t in spec.title.split(" / "))
                                          if spec.title else " & ".join(section_topic(x) for x in secs[:2])))
    if not spec.title and len(secs) > 1 and font(38, True).getlength(deck) > SW - 2 * PAD:
        # a title that must wrap would show the content slide's title ("A & B") as a line of its own
        deck = deck.replace(" & ".join(section_topic(x) for x in secs[:2]), section_topic(secs[0]))
    slides: list[Image.Image] = []

    # Title slide
    s = Image.new("RGB", (SW, SH), WHITE)
    d = ImageDraw.Draw(s)
    d.rectangle((0, 0, 24, SH), fill=dark)
    d.ellipse((SW - 260, SH - 250, SW + 140, SH + 150), fill=tint)
    d.ellipse((SW - 170, SH - 330, SW - 80, SH - 240), fill=tint)
    d.text((PAD, 70), brand.company.upper(), font=font(20, True), fill=dark)
    size = 54  # the title on one line where it can be (a wrapped title's first line would read as
    while size > 38 and font(size, True).getlength(deck) > SW - 2 * PAD:  # a slide's own title)
        size -= 2
    y = 120 + text_block(d, PAD, 120, deck, font(size, True), INK, SW - 2 * PAD, 1.15)
    d.text((PAD, y + 16), f"{presenter}  |  {fmt_date(date)}", font=font(24), fill=MUTED)
    y += 80
    # earlier values only: a rumour has no place on a slide (the planner gives none; see rumours)
    hedges = [h.text for h in content.hedges if h.distractor.role == "superseded"]
    # an agenda names each subject in a word or two: a noun-phrase heading, never a question's
    # first word ("1. What" for "What can be changed", "1. Category C:")
    agenda = list(dict.fromkeys(spoken_topic(t) for it in items if names_subject(t := topic_of(it.fact))))
    if not hedges and agenda:
        d.text((PAD, y + 10), "Agenda", font=font(24, True), fill=INK)
        for i, item in enumerate(agenda[:4]):
            d.text((PAD, y + 50 + i * 36), f"{i + 1}.  {item[:1].upper() + item[1:]}", font=font(22), fill=MUTED)
    if hedges:
        bw = SW - 2 * PAD
        hh = sum(text_block(None, 0, 0, t, font(24), None, bw - 48) + 10 for t in hedges) + 64
        d.rounded_rectangle((PAD, y, PAD + bw, y + hh), radius=12, fill=(255, 247, 225), outline=(232, 180, 70))
        d.text((PAD + 24, y + 14), "Since the last version", font=font(24, True), fill=INK)
        ty = y + 52
        for t in hedges:
            ty += text_block(d, PAD + 24, ty, t, font(24), INK, bw - 48) + 10
    _chrome(d, ctx, 1, dark, say(_CLASS[0], rng, {"team": rng.choice(["Customer Operations", "Service Policy",
                                                                        "Quality and Training", "Contact Centre"])}))
    slides.append(s)

    # Content slides: facts spread evenly, at most PER_SLIDE per slide, within the slide height.
    width = SW - 2 * PAD - 40
    pages = _content_pages(spec, ctx, items, facts, width)
    # a slide title on one line inside the slide: its second section is dropped when the two do
    # not fit, before slides of one title are numbered, so a shortened title is numbered too
    titles = [_fit_title(t) for t, _ in pages]
    for k, (_title, blocks) in enumerate(pages):
        title = titles[k]
        j, n = k, k  # a section spread over several slides: "(2 of 3)", never one title twice
        while j > 0 and titles[j - 1] == title:
            j -= 1
        while n + 1 < len(titles) and titles[n + 1] == title:
            n += 1
        if n > j:
            title = f"{title} ({k - j + 1} of {n - j + 1})"
        s = Image.new("RGB", (SW, SH), WHITE)
        d = ImageDraw.Draw(s)
        size = 40
        while size > 28 and font(size, True).getlength(title) > SW - 2 * PAD:
            size -= 2
        d.text((PAD, 56), title, font=font(size, True), fill=INK)
        d.rectangle((PAD, 118, PAD + 90, 124), fill=dark)
        y = 160
        for head, body in blocks:
            d.rectangle((PAD, y + 12, PAD + 14, y + 26), fill=dark)
            if head and body:
                y += text_block(d, PAD + 40, y, head, font(30, True), INK, width, 1.2) + 8
                y += text_block(d, PAD + 40, y, body, font(24), (52, 60, 74), width, 1.3) + 30
            else:
                y += text_block(d, PAD + 40, y, head or body, font(28), INK, width, 1.25) + (30 if body else 14)
        _chrome(d, ctx, len(slides) + 1, dark)
        slides.append(s)

    slides.append(_closing_slide(ctx, presenter, date, dark, len(slides) + 1, rng))
    return slides


def _fit_title(title: str) -> str:
    """`title`, or its first section when "A & B" does not fit one line at the smallest size
    (room left for a " (2 of 3)")."""
    if " & " in title and font(28, True).getlength(title + " (2 of 3)") > SW - 2 * PAD:
        return title.split(" & ")[0]
    return title


def _page(blocks: list[tuple[list[Item], str, str]]) -> tuple[str, list[tuple[str, str]]]:
    """A content slide's title and its (head, body) bullets; `blocks`: the items of each bullet."""
    items = [it for its, _h, _b in blocks for it in its]
    secs = list(dict.fromkeys(section_of(it.fact, "Key rules") for it in items))
    rows = list(dict.fromkeys(r.cell["row"] for it in items if (r := read(it.fact)).cell))
    # a catalog slide is named by its products, others by their sections
    title = " & ".join(rows[:2]) if rows else " & ".join(section_topic(x) for x in secs[:2])
    return title, [(head, body) for _its, head, body in blocks]


def _head(it: Item) -> str:
    """Bullet head: 'label: value' above the sentence; none when the sentence already opens
    with the label (a bullet is never printed twice) or for a catalog cell (cells of one column
    would repeat their column's name), and for a fact without values, none (the statement
    itself is the bullet)."""
    if not it.value:
        return ""
    if read(it.fact).cell:  # a catalog cell: its sentence names row and column; no head to repeat
        return ""
    if " ".join(it.label.lower().split()) in " ".join(it.text.lower().split()) or not is_name(it.label):
        return ""  # (a clause for a label, "Before calling ..., the agent should", heads nothing)
    return f"{it.label}: {it.value}"
