"""visuals/web_screenshot: a screenshot of a company web page (PNG, 1280 px wide).

Top navigation with logo and links, a hero with breadcrumb and title, an update notice
(dated earlier values, above the cards), a grid of policy / price cards (one fact per card:
label, value, and the full statement; the items of one list on one card), fine print and a
dark footer; a page without facts shows marketing cards, none repeating another. Fact-bearing text is
dark on white or pale backgrounds, at least 22 px (DejaVu Sans). Recovered by OCR.
"""
from __future__ import annotations

import datetime as dt
import random
import re
from pathlib import Path

from PIL import Image, ImageDraw

from transforms.clock import fmt_date, spec_date
from transforms.common import (Content, card_titles, catalog_view, check_capacity, grouped, merge_cards, plan_content,
                               protect)
from transforms.headings import section_of, section_topic
from transforms.records import slug

from ..base import ExtractContext, Extraction, RenderContext, Transformer
from ..grammar import capitalise, say
from ..plan import ArtifactSpec
from ..reading import read
from ..registry import register
from ..situations import view
from .canvas import INK, LINE, MUTED, WHITE, brand_colors, font, line_height, ocr_text, save_png, shadow_box, text_block


W = 1280
MARGIN = 64
GUTTER = 96  # between the two card columns (at 32 px OCR read lines across them)
_TITLES = ["{sec} at {company}", "Pricing and policies", "{sec}: the details", "Good to know before you apply",
           "Fees and rules", "{sec} explained"]
_NOISE_TITLES = ["Why choose <short>?", "<short> at a glance", "Getting more from <short>", "Our services",
                 "Ways to get help", "About <short>", "Everyday services at <short>"]
# A page's marketing cards are drawn from the domain: the brand's services (by what they are),
# its catalog products, what its customers hold (record kinds), and how to reach support.
_SERVICE_CARD = ["<bp> is our <what>{ — ask us about it in any branch| — find the details online| — our team can "
                 "tell you more|}.", "{Find out about|Learn more about|Ask us about} <bp>, our <what>{, online or in "
                 "any branch| — it is free for customers|}."]
_PRODUCT_CARD = ["{Find out more about|Compare|See the terms of|Ask us about} the <row>{ on our <topic> page| in the "
                 "help centre| in any branch| with our team|}.", "{Thinking about|Already have} the <row>? {See|Read} "
                 "{what it includes|how it works|its terms} {online|in the help centre}."]
_RECORD_CARD = ["{See|Check|Track} your <kind>s{ and their status|, old and new|} {in the app|online|in your account}"
                "{ — updated daily| at any time|}.", "{Every|Each} <kind> {you have|on your account} is {listed|shown} "
                "{in the app|online}{ with its status| as soon as it changes|}."]
_SUPPORT_CARD = ["{Call|Ring} <phone> or {chat with us|message us} {from the app|on this site|any time}{ — we answer "
                 "<hours>|}.", "{Our team|Someone from our team} {answers|replies to} {chat|messages|email} <hours>{, and "
                 "most questions are sorted in one contact|}."]
# Cards on a policy topic of the domain (the topic is the card's heading, the page's name in
# quotes): pages of a domain with few services, products or record kinds (an imported policy
# without a catalog or a database) are filled with these.
_TOPIC_CARD = ["{Questions on this?|Need more detail?|Not sure how it works?} {Our help centre|The help centre} {has the "
               "answers|explains it step by step|walks you through it}{, or ask our team| — or ask us in chat|}.",
               "{Read|See} \u201c<topic>\u201d {in the help centre|online|in the app}{ for the details| for the full "
               "rules| before you contact us|}.",
               "{How it works|What to expect|What you can do}{, step by step|, in plain words|} \u2014 {in our help "
               "centre|online or in the app|from our team}."]
_SUPPORT_TITLES = ["Friendly support", "Talk to us", "Here to help", "Get in touch"]
_LINKS = ["Home", "Pricing", "Locations", "Help", "About"]


@register
class WebScreenshot(Transformer):
    family = "visuals"
    kind = "web_screenshot"
    ext = ".png"
    modality = "png"
    max_facts = 6
    weight = 1.0
    description = "Screenshot of a company web page: nav, hero, policy/price cards, fine print, footer (OCR)."

    def render(self, spec: ArtifactSpec, ctx: RenderContext, out: Path) -> None:
        check_capacity(spec, self.max_facts)
        rng = spec.rng("web_screenshot")
        content = plan_content(spec, ctx, rng, role="customer", register="kb")
        save_png(_draw(spec, ctx, content, rng), out)

    def extract(self, path: Path, ctx: ExtractContext) -> Extraction:
        return Extraction(text=ocr_text(path), extractor="ocr-tesseract-psm3")


def _noise_cards(ctx: RenderContext, rng: random.Random, n: int) -> list[tuple[str, str]]:
    """Up to `n` marketing cards (heading, text) drawn from the domain (see `_SERVICE_CARD`).

    A page names each subject (a service, a product, a kind of record, the contact details) on
    one card at most, and no two of its cards share a run of four words (`_runs`): cards side
    by side with the same wording ("..., and most questions are sorted in one contact." under
    two contact cards) are the page repeating itself, and a wrapped line of one card prints
    again, word for word, in the other (the lint `duplicated_bullet`). A domain whose services,
    products and record kinds give fewer cards (an imported policy with no catalog and no
    database) fills the page with cards on its policy's topics (`_TOPIC_CARD`), else shows
    fewer cards."""
    brand = ctx.pack.brand
    names = catalog_view(ctx)
    topics = names["rows"]
    rows = list(topics)
    kinds = sorted({r.kind for r in view(ctx.db).records if r.kind})
    hours = rng.choice(["seven days a week", "weekdays from 8am to 8pm", "every day until 10pm", "around the clock"])
    makers = []  # each gives (subject, heading, text)
    if brand.products:
        def service():
            what, bp = rng.choice(sorted(brand.products.items()))
            return bp, bp, say(rng.choice(_SERVICE_CARD), rng, {"bp": bp, "what": what})
        makers.append(service)
    if rows:
        def product():
            row = rng.choice(rows)
            return row, row, say(rng.choice(_PRODUCT_CARD), rng,
                                 {"row": row, "topic": ctx.writer.lower_first(topics[row])})
        makers.append(product)
    if kinds:
        def record():
            kind = rng.choice(kinds)
            return (kind, say("{Your <kind>s|<Kind>s online|<Kind>s in the app}", rng,
                              {"kind": kind, "Kind": kind.capitalize()}),
                    say(rng.choice(_RECORD_CARD), rng, {"kind": kind}))
        makers.append(record)

    def support():
        return "", rng.choice(_SUPPORT_TITLES), say(rng.choice(_SUPPORT_CARD), rng,
                                                     {"phone": brand.phone or "our support line", "hours": hours})
    makers.append(support)
    rng.shuffle(makers)
    out: list[tuple[str, str]] = []
    subjects: set[str] = set()
    said: set[tuple[str, ...]] = set()  # every run of four words the page's cards print

    def add(card: tuple[str, str, str]) -> None:
        subject, heading, text = card
        runs = _runs(text)
        if subject not in subjects and heading not in {c[0] for c in out} and not runs & said:
            out.append((heading, text))
            subjects.add(subject)
            said.update(runs)

    for i in range(n * 3):
        add(makers[i % len(makers)]() if i < len(makers) else rng.choice(makers)())
        if len(out) == n:
            return out
    # (not a section written for the staff: "Airline Agent", "Staff procedures")
    pool = [t for t in names["sections"] if not re.search(r"\b(?:agents?|staff)\b", t, re.I)]
    for topic in rng.sample(pool, len(pool)):
        if len(out) == n:
            break
        for _ in range(6):  # another wording when this one echoes a card already on the page
            if topic in {c[0] for c in out}:
                break
            add(("topic: " + topic, topic, say(rng.choice(_TOPIC_CARD), rng, {"topic": topic})))
    return out


def _runs(text: str, k: int = 4) -> set[tuple[str, ...]]:
    """The runs of `k` words of a card's text (lower case, punctuation dropped)."""
    words = re.findall(r"[a-z0-9$%'-]+", text.lower().replace("\u2019", "'"))
    return {tuple(words[i:i + k]) for i in range(len(words) - k + 1)}


def figure_text(value: str) -> str:
    """A card's large figure as drawn: a count of zero in a word ("Zero deposits"), since
    tesseract reads a bold "0" at the head of a card as the letter O ("O deposits": banking's
    Open Door Certificate card failed the recoverability gate on it, text+image+audio, seed 0);
    every other figure as it is."""
    return re.sub(r"^0(?= [a-z])", "Zero", value)


_CELL_BODY = ["{What} for {whom}.", "{What}, {whom}.", "Applies to {whom}: {what}.", "{What} for {whom}, as of today.",
              "Current {what} for {whom}.", "{What} shown for {whom}."]


def _card_body(ctx: RenderContext, it, rng: random.Random) -> str:
    """The small print under a card's figure. A price card for a catalog cell says whom the
    figure is for and what it is, as pricing pages do; the figure itself is the card's large
    line, never beside its measure. Other cards carry their statement."""
    r = read(it.fact)
    realiser = getattr(ctx.writer, "realiser", None)
    if not (r.cell and it.current and it.value and realiser is not None):
        return it.text
    what, whom = realiser.cell_parts(r, rng)  # each card its own measure and case: no two bodies alike
    return capitalise(rng.choice(_CELL_BODY).format(what=what, What=capitalise(what), whom=whom))


def _nav_bar(d: ImageDraw.ImageDraw, brand, dark, rng: random.Random) -> None:
    """The site's navigation bar: logo, name, links and a call-to-action button."""
    d.rectangle((0, 0, W, 76), fill=WHITE)
    d.line((0, 76, W, 76), fill=LINE, width=1)
    d.rounded_rectangle((MARGIN, 18, MARGIN + 40, 58), radius=10, fill=dark)
    ini = (brand.short_name or brand.company)[:1].upper()
    d.text((MARGIN + 20, 38), ini, font=font(24, True), fill=WHITE, anchor="mm")
    d.text((MARGIN + 54, 38), brand.short_name or brand.company, font=font(24, True), fill=INK, anchor="lm")
    x = W - MARGIN - 150
    btn = rng.choice(["Book now", "Sign in", "Get started"])
    d.rounded_rectangle((x, 18, W - MARGIN, 58), radius=20, fill=dark)
    d.text(((x + W - MARGIN) // 2, 38), btn, font=font(18, True), fill=WHITE, anchor="mm")
    lx = x - 40
    for link in reversed(_LINKS):
        lx -= int(font(18).getlength(link))
        d.text((lx, 38), link, font=font(18), fill=MUTED, anchor="lm")
        lx -= 34


def _footer(d: ImageDraw.ImageDraw, brand, date: dt.date, y: int, H: int) -> None:
    """The page's footer from `y` down: copyright, contact and the legal links."""
    d.rectangle((0, y, W, H), fill=(24, 30, 42))
    d.text((MARGIN, y + 36), f"\u00a9 {date.year} {brand.company}", font=font(18, True), fill=(225, 230, 238))
    contact = "  |  ".join(p for p in (brand.phone, f"support@{brand.email_domain}") if p)
    d.text((MARGIN, y + 72), contact, font=font(16), fill=(170, 180, 195))
    fx = W - MARGIN
    for link in reversed(["Privacy", "Terms", "Accessibility", "Careers"]):  # legible to OCR too
        fx -= int(font(17).getlength(link))
        d.text((fx, y + 40), link, font=font(17), fill=(214, 220, 230))
        fx -= 28


def _rows(cards: list, per_row: int) -> list[list]:
    """Cards side by side, `per_row` at most, a row never mixing two groups."""
    rows: list[list] = []
    for c in cards:
        if rows and len(rows[-1]) < per_row and rows[-1][-1][0] == c[0]:
            rows[-1].append(c)
        else:
            rows.append([c])
    return rows


def _draw(spec: ArtifactSpec, ctx: RenderContext, content: Content, rng: random.Random) -> Image.Image:
    brand, w = ctx.pack.brand, ctx.writer
    dark, tint = brand_colors(brand.company)
    date = spec_date(spec)
    items = content.items
    facts = [it.fact for it in items]
    secs = list(dict.fromkeys(section_of(it.fact, "Policies") for it in items))
    sec = secs[0] if secs else "Our service"
    sec = section_topic(sec)
    short = brand.short_name or brand.company
    shown = " / ".join(section_topic(t) for t in spec.title.split(" / ")) if spec.title else ""
    title = shown or (say(rng.choice(_NOISE_TITLES), rng, {"short": short}) if spec.noise
                           else rng.choice(_TITLES).format(sec=sec, sec_l=w.lower_first(sec), company=short))

    if spec.noise:
        cards = [("", h, "", b) for h, b in _noise_cards(ctx, rng, 4)]
    else:
        # catalog cells under their row (or column) named once; a card without a value has no
        # title (its label would be the section's name, the page's own title)
        cards = grouped([(group, label, value, protect(body, facts)) for group, label, value, body in merge_cards(
            [(group, label, figure_text(it.value), _card_body(ctx, it, rng))
             for (group, label), it in zip(card_titles(items), items)],
            facts, ctx.pack.info.currency)])
    notices = [h.text if h.distractor.role == "superseded"
               else f"You asked: \u201c{h.text}\u201d See the current rule below." for h in content.hedges]

    f_label, f_value, f_body = font(26, True), font(40, True), font(22)
    # cards side by side, except under group headings (a product's terms read down one column;
    # OCR reads two columns' aligned titles as one line), on a page without facts and where a
    # card has no title: OCR reads untitled cards side by side line by line across both
    # columns, joining one card's words to the other's
    col_w = ((W - 2 * MARGIN - GUTTER) // 2 if len(cards) > 1 and not any(c[0] for c in cards) and not spec.noise
             and all(c[1] for c in cards) else W - 2 * MARGIN)
    inner = col_w - 56

    def card_h(c) -> int:
        _group, label, value, body = c
        h = 28 + (text_block(None, 0, 0, label, f_label, None, inner, 1.25) + 10 if label else 0)
        if value:
            h += line_height(f_value, 1.2) + 6
        return h + text_block(None, 0, 0, body, f_body, None, inner) + 30

    per_row = 2 if col_w < W - 2 * MARGIN else 1
    rows = _rows(cards, per_row)
    heads = [r[0][0] if r[0][0] and (i == 0 or rows[i - 1][0][0] != r[0][0]) else "" for i, r in enumerate(rows)]
    row_h = [max(card_h(c) for c in r) + (48 if hd else 0) for r, hd in zip(rows, heads)]
    f_note = font(22)
    note_h = sum(text_block(None, 0, 0, n, f_note, None, W - 2 * MARGIN - 80) + 14 for n in notices)
    note_h = note_h + 60 if notices else 0
    site = brand.website or brand.email_domain
    fine = say("{Figures|Amounts} {are|shown are} in <cur>{ unless stated otherwise|}{ on this page|<for_sec>|}. {Information|The information} on this page {is current|"
               "was checked} as of <date>{ and may change| and can change without notice|}{; the terms in force when you "
               "{apply|sign up|buy} apply|; your own terms take precedence|}. {Full|Complete} terms{<for_sec>|}: "
               "<site>/<path>", rng, {"cur": ctx.pack.info.currency, "for_sec": "" if spec.noise else
                                      f" for {w.lower_first(sec)}", "date": fmt_date(date),
                                      "site": site, "path": "terms/" + slug(sec, 30) if not spec.noise else "terms"})
    f_fine = font(17)
    fine_h = text_block(None, 0, 0, fine, f_fine, None, W - 2 * MARGIN) + 40
    H = 76 + 250 + note_h + sum(row_h) + 32 * len(rows) + 40 + fine_h + 150
    img = Image.new("RGB", (W, H), (247, 249, 252))
    d = ImageDraw.Draw(img)

    _nav_bar(d, brand, dark, rng)

    # Hero
    y = 77
    d.rectangle((0, y, W, y + 250), fill=tint)
    d.text((MARGIN, y + 36), f"Home  /  {rng.choice(['Pricing', 'Help', 'Policies'])}  /  {sec}", font=font(17),
           fill=MUTED)
    d.text((MARGIN, y + 76), title, font=font(46, True), fill=INK)
    sub = brand.tagline if brand.tagline and spec.noise and rng.random() < 0.35 else say(
        "{Everything you need to know about|What to know about|The essentials of|Your guide to} <sec_l>{ at <short>|}{.|}",
        rng, {"sec_l": w.lower_first(sec), "short": short})
    d.text((MARGIN, y + 148), sub, font=font(24), fill=MUTED)
    upd = date - dt.timedelta(days=rng.randint(0, 10))
    d.text((MARGIN, y + 192), f"Last updated {fmt_date(upd)}", font=font(18), fill=MUTED)
    y += 250 + 30

    # Update notice: earlier values, named as such, above the cards.
    if notices:
        box_h = note_h - 20
        d.rounded_rectangle((MARGIN, y, W - MARGIN, y + box_h), radius=10, fill=(255, 247, 225),
                            outline=(240, 190, 80))
        d.text((MARGIN + 40, y + 14), "Policy update", font=font(22, True), fill=INK)
        ny = y + 50
        for n in notices:
            ny += text_block(d, MARGIN + 40, ny, n, f_note, INK, W - 2 * MARGIN - 80) + 14
        y += note_h + 10

    # Cards
    for r, h, hd in zip(rows, row_h, heads):
        if hd:
            d.text((MARGIN, y + 2), hd, font=font(28, True), fill=dark)
            y += 48
            h -= 48
        for i, (_group, label, value, body) in enumerate(r):
            x0 = MARGIN + i * (col_w + GUTTER)
            shadow_box(img, (x0, y, x0 + col_w, y + h))
            d.rounded_rectangle((x0, y, x0 + col_w, y + 8), radius=4, fill=dark)
            cy = y + 28
            if label:
                cy += text_block(d, x0 + 28, cy, label, f_label, INK, inner, 1.25) + 10
            if value:
                d.text((x0 + 28, cy), value, font=f_value, fill=INK)
                cy += line_height(f_value, 1.2) + 6
            text_block(d, x0 + 28, cy, body, f_body, (45, 52, 64), inner)
        y += h + 32

    # Fine print
    y += 8
    text_block(d, MARGIN, y, fine, f_fine, MUTED, W - 2 * MARGIN)
    y += fine_h

    _footer(d, brand, date, y, H)
    return img
