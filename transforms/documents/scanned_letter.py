"""documents/scanned_letter: a letter to a customer, printed, signed, stamped on arrival and
scanned back in: an image-only PDF (no text layer), modality "scan".

The page (US Letter, drawn at 200 dpi with Pillow in DejaVu Serif) has a letterhead, the date,
the customer's address block and reference from the seed database, a "Re:" line, the body
(an opening line about the customer's record, what the customer wrote quoted when the plan
gives a wrong value, the facts worded for a customer, a closing with the reference to quote),
the signer's name and title, and a footer. A second page follows when the body
does not fit. Routine letters (no fact) confirm a change to a record or acknowledge a letter.

Then it is scanned: greyscale, an off-white paper tone with uneven light, a "RECEIVED" stamp
with the date of arrival (in the top margin at the right, clear of the text), a faint fold line, a slight
rotation (0.3 to 1.3 degrees either way) and offset, sensor noise and a few specks, a little
blur, JPEG compression. Every effect is drawn from the artifact's seeded rng, so the same spec
gives byte-identical files. The PDF is written by Pillow (one JPEG image per page) with fixed
document information (title, author, dates): nothing depends on the clock or the path.

Extraction (`transforms.extract.scan`): pdftoppm rasterises each page at 300 dpi, the skew is
measured and undone, and tesseract reads the page. The audits see only that OCR text.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import io
import random
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter

from transforms.clock import fmt_date, spec_date
from transforms.common import Content, check_capacity, doc_number, plan_content, protect
from transforms.headings import topic_of

from ..base import ExtractContext, Extraction, RenderContext, Transformer
from ..extract.scan import scan_text
from ..plan import ArtifactSpec
from ..registry import register
from ..situations import view
from ..visuals.canvas import font as _px_font, wrap


DPI = 200
PW, PH = int(8.5 * DPI), 11 * DPI   # US Letter
ML, MR, MT, MB = 200, 200, 170, 190  # margins, px
INK = 28
BODY = 11  # pt

_OPEN = ["Thank you for your letter of {prev} about {topic}. We have looked into it and set out below how "
         "the rules apply.",
         "Following your call on {prev}, we are writing to confirm in writing how {topic} works.",
         "We are writing about {topic} on your {rec}. This letter sets out the rules that apply.",
         "Thank you for contacting us on {prev}. As promised, here is a written summary on {topic}."]
_WROTE = ["In your letter you wrote:", "When you contacted us, you said:", "Your note of {prev} said:"]
_AFTER = ["We are sorry for any confusion this caused.", "We understand why this was unclear.",
          "We appreciate you raising this with us."]
_CLOSE = ["If you have any questions, please call us on {phone} or reply to this letter, quoting reference {ref}.",
          "Should you need anything further, please contact us on {phone} and quote reference {ref}.",
          "Please keep this letter for your records. Our reference is {ref}; please quote it if you contact us."]
_SIGN_OFF = ["Yours sincerely,", "Kind regards,", "Yours faithfully,", "With best regards,"]
_TITLES = ["Customer Relations Manager", "Head of Customer Care", "Customer Relations Team Lead",
           "Customer Service Manager"]
_NOISE = [("Confirmation of changes to your {rec}",
           ["This letter confirms the changes made to your {rec} {rid} on {prev}.",
            "The updated details are shown in your online account, where you can also download a copy.",
            "There is nothing more you need to do."]),
          ("Your recent enquiry",
           ["Thank you for your enquiry of {prev} about your {rec} {rid}.",
            "A member of our team has reviewed the record and it is now up to date.",
            "We have closed the enquiry; you can reopen it at any time by replying to this letter."]),
          ("Update to your contact details",
           ["As requested, we have updated the contact details held on your account.",
            "Letters and statements will be sent to the address above from now on.",
            "If you did not ask for this change, please call us straight away."])]


@register
class ScannedLetter(Transformer):
    family = "documents"
    kind = "scanned_letter"
    ext = ".pdf"
    modality = "scan"
    max_facts = 5
    weight = 0.8
    description = "Letter to a customer, signed, stamped and scanned: image-only PDF, slight skew and noise (OCR)."

    def render(self, spec: ArtifactSpec, ctx: RenderContext, out: Path) -> None:
        check_capacity(spec, self.max_facts)
        rng = spec.rng("scanned_letter")
        content = plan_content(spec, ctx, rng, role="customer", register="customer_email")
        pages, meta = _letter(spec, ctx, content, rng)
        scans = [_scan(p, spec, rng, stamp=(i == 0), received=meta["received"]) for i, p in enumerate(pages)]
        out.write_bytes(_pdf(scans, meta))

    def extract(self, path: Path, ctx: ExtractContext) -> Extraction:

        return Extraction(text=scan_text(path), extractor="scan-pdftoppm-deskew-tesseract")


# --- the letter --------------------------------------------------------------------------------
def _pt(size: float) -> int:
    return int(round(size * DPI / 72))


def font(size_pt: float, bold: bool = False, family: str = "serif"):
    """A DejaVu font of `size_pt` points at the page's resolution."""
    return _px_font(_pt(size_pt), bold, family)


def _address(ctx: RenderContext) -> str:
    h = int(hashlib.sha256(ctx.pack.brand.company.encode()).hexdigest(), 16)
    streets = ["Harbor Way", "Commerce Street", "Meridian Avenue", "Lakeside Drive", "Foundry Road", "Union Square"]
    return f"Customer Relations, {100 + h % 800} {streets[h % len(streets)]}, Suite {200 + h % 50}"


def _letter(spec: ArtifactSpec, ctx: RenderContext, content: Content, rng: random.Random):
    """The letter's pages (greyscale, clean) and the PDF's document information."""
    brand, w = ctx.pack.brand, ctx.writer
    day = spec_date(spec)
    prev = day - dt.timedelta(days=rng.randint(3, 12))
    v = view(ctx.db)
    cust = v.customer(rng, lambda c: bool(c.records)) or v.customer(rng)
    name = cust.name if cust else w.person(rng, "customer")
    rec = rng.choice(cust.records) if cust and cust.records else None
    rec_kind = rec.kind if rec else "account"
    rid = rec.id if rec and rec.id else (cust.id if cust else f"{rng.randint(100000, 999999)}")
    signer = w.person(rng, "manager")
    title = rng.choice(_TITLES)
    ref = doc_number(ctx, rng, "CR")
    items = [it for it in content.items]
    facts = [it.fact for it in items]
    secs = list(dict.fromkeys(topic_of(it.fact) for it in items if it.fact.section))  # named in prose
    topic = " and ".join(w.lower_first(s) for s in secs[:2]) or "your account"

    fmt = {"prev": fmt_date(prev), "topic": topic, "rec": rec_kind, "rid": rid, "ref": ref,
           "phone": brand.phone or f"the number on {brand.website or 'our website'}"}
    if spec.noise:
        subject, lines = rng.choice(_NOISE)
        subject = subject.format(**fmt)
        paras = [" ".join(ln.format(**fmt) for ln in lines)]
    else:
        # the letter's own topic: the plan's title is an internal thread's subject ("Items: need a
        # ruling"), words a business never prints on a letter to a customer
        subject = topic[:1].upper() + topic[1:]
        subject = f"{subject}, {rec_kind} {rid}" if rec else subject
        paras = [rng.choice(_OPEN).format(**fmt)]
        if content.hedges:
            paras.append(rng.choice(_WROTE).format(**fmt))
            paras += [f"\u201c{h.text}\u201d" for h in content.hedges]
            paras.append(rng.choice(_AFTER))
        body = [protect(it.text, facts) for it in items if it.text]
        while body:
            n = min(len(body), rng.choice([1, 2, 2, 3]))
            paras.append(" ".join(body[:n]))
            body = body[n:]
    paras.append(rng.choice(_CLOSE).format(**fmt))

    f_body = font(BODY, False, "serif")
    lh = int(_pt(BODY) * 1.45)
    width = PW - ML - MR
    pages: list[Image.Image] = []
    page, d, y = _new_page(ctx, day, len(pages) + 1)
    y = _head(d, ctx, y)
    d.text((ML, y), fmt_date(day), font=f_body, fill=INK)
    y += lh * 2
    for ln in [name, f"{rec_kind.title()} {rid}" if rec else f"Customer {rid}",
               (cust.city if cust and cust.city else "")]:
        if ln:
            d.text((ML, y), ln, font=f_body, fill=INK)
            y += lh
    y += lh
    d.text((ML, y), f"Re: {subject}", font=font(BODY, True, "serif"), fill=INK)
    y += int(lh * 1.8)
    d.text((ML, y), f"Dear {name},", font=f_body, fill=INK)
    y += int(lh * 1.6)
    bottom = PH - MB - 40
    for para in paras:
        for ln in wrap(para, f_body, width):
            if y + lh > bottom:
                pages.append(page)
                page, d, y = _new_page(ctx, day, len(pages) + 1)
                y += lh
            d.text((ML, y), ln, font=f_body, fill=INK)
            y += lh
        y += int(lh * 0.6)
    if y + lh * 6 > bottom:
        pages.append(page)
        page, d, y = _new_page(ctx, day, len(pages) + 1)
        y += lh
    y += int(lh * 0.4)
    d.text((ML, y), rng.choice(_SIGN_OFF), font=f_body, fill=INK)
    # no drawn signature: OCR read a pen stroke of any weight as letters or digits ("Rar re a",
    # "r 4 v r"), noise a shallow reader would take for text and a stray "4" for a value
    y += lh * 2
    d.text((ML, y), signer, font=font(BODY, True, "serif"), fill=INK)
    d.text((ML, y + lh), f"{title}, {brand.company}", font=f_body, fill=INK)
    pages.append(page)
    total = len(pages)
    for i, p in enumerate(pages):
        dd = ImageDraw.Draw(p)
        dd.text((PW // 2, PH - MB + 70), f"Page {i + 1} of {total}", font=font(8, False, "serif"), fill=90,
                anchor="mm")
    meta = {"title": f"{brand.company} - letter {ref}", "author": brand.company, "subject": subject,
            "day": day, "received": day + dt.timedelta(days=rng.randint(2, 6))}
    return pages, meta


def _new_page(ctx: RenderContext, day: dt.date, num: int):
    page = Image.new("L", (PW, PH), 255)
    d = ImageDraw.Draw(page)
    brand = ctx.pack.brand
    foot = f"{brand.company}  \u00b7  {_address(ctx)}  \u00b7  {brand.website or brand.email_domain}"
    d.line((ML, PH - MB + 20, PW - MR, PH - MB + 20), fill=150, width=2)
    d.text((PW // 2, PH - MB + 42), foot, font=font(7, False, "serif"), fill=90, anchor="mm")
    y = MT
    if num > 1:
        d.text((ML, y - 60), f"{brand.company}  \u2014  {fmt_date(day)}  \u2014  continued", font=font(8, False, "serif"),
               fill=90)
    return page, d, y


def _head(d: ImageDraw.ImageDraw, ctx: RenderContext, y: int) -> int:
    brand = ctx.pack.brand
    d.text((ML, y), brand.company, font=font(22, True, "serif"), fill=INK)
    y += _pt(22) + 14
    if brand.tagline:
        d.text((ML, y), brand.tagline, font=font(10, False, "serif-italic"), fill=70)
        y += _pt(10) + 10
    contact = "  \u00b7  ".join(x for x in (brand.phone, brand.website, f"letters@{brand.email_domain}") if x)
    d.text((ML, y), contact, font=font(8, False, "serif"), fill=70)
    y += _pt(8) + 18
    d.line((ML, y, PW - MR, y), fill=60, width=3)
    return y + 70


# --- the scan -------------------------------------------------------------------------------------
def _stamp(day: dt.date, rng: random.Random) -> Image.Image:
    """A rubber stamp: "RECEIVED" and the date in a double frame (as a mask), small enough to
    sit in the top margin above the letterhead (about 0.7 inch tall, turned up to 4 degrees)."""
    wd, ht = 380, 112
    m = Image.new("L", (wd, ht), 0)
    d = ImageDraw.Draw(m)
    d.rounded_rectangle((3, 3, wd - 4, ht - 4), radius=16, outline=255, width=6)
    d.rounded_rectangle((14, 14, wd - 15, ht - 15), radius=10, outline=255, width=2)
    d.text((wd // 2, 42), "RECEIVED", font=font(13, True, "sans"), fill=255, anchor="mm")
    d.text((wd // 2, 80), day.strftime("%d %b %Y").upper(), font=font(10, True, "mono"), fill=255, anchor="mm")
    return m.rotate(rng.uniform(-4, 4), resample=Image.BICUBIC, expand=True)


def _clear_spot(page: Image.Image, mask: Image.Image, x: int, y: int, pad: int = 16) -> tuple[int, int]:
    """Where the stamp goes: the first place, from (x, y) down the right-hand side of the page's
    upper half, where the stamp and `pad` pixels around it cover no ink, so OCR reads the
    letterhead and the body as printed and the stamp on its own (a long letterhead, "Tau2
    Retail Co." with a long e-mail domain, ran under the stamp and OCR read the two as one
    line: "RECEIVED Tau2 Retail Co. an See"). When no place is clear, (x, y) itself."""
    import numpy as np  # noqa: PLC0415  (heavy; loaded on first use)

    box = mask.getbbox()
    if box is None:
        return x, y
    ink = np.asarray(page) < 200
    x = max(0, min(x, page.width - box[2] - pad))
    for top in range(y, page.height // 2, 8):
        l, t = max(0, x + box[0] - pad), max(0, top + box[1] - pad)
        r, b = min(page.width, x + box[2] + pad), min(page.height, top + box[3] + pad)
        if not ink[t:b, l:r].any():
            return x, top
    return x, y


def _scan(page: Image.Image, spec: ArtifactSpec, rng: random.Random, stamp: bool, received: dt.date) -> Image.Image:
    import numpy as np  # noqa: PLC0415  (heavy; loaded on first use)

    gen = np.random.default_rng(rng.randrange(1 << 32))
    img = page.copy()
    if stamp:  # stamped at the top right, clear of the text (`_clear_spot`)
        m = _stamp(received, rng)
        ink = Image.new("L", m.size, rng.randint(95, 125))
        uneven = Image.fromarray((gen.uniform(0.55, 1.0, (m.size[1], m.size[0])) * 255).astype("uint8"))
        mask = Image.fromarray((np.asarray(m, float) * np.asarray(uneven, float) / 255).astype("uint8"))
        img.paste(ink, _clear_spot(page, m, PW - MR - m.size[0] + rng.randint(-20, 10), 6 + rng.randint(0, 10)), mask)
    a = np.asarray(img, dtype=np.float32) / 255.0
    # paper tone and uneven light (a lid that does not sit flat)
    yy, xx = np.mgrid[0:PH, 0:PW].astype(np.float32)
    paper = rng.uniform(232, 244) + rng.uniform(-7, 7) * (xx / PW - 0.5) + rng.uniform(-5, 5) * (yy / PH - 0.5)
    ink_floor = rng.uniform(18, 34)
    a = ink_floor + a * (paper - ink_floor)
    # a faint fold a third of the way down
    fold = int(PH * rng.uniform(0.32, 0.36))
    a[fold:fold + 3, :] -= rng.uniform(8, 14)
    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8), mode="L")
    angle = rng.choice([-1, 1]) * rng.uniform(0.3, 1.3)
    dx, dy = rng.randint(-14, 14), rng.randint(-10, 18)
    img = img.rotate(angle, resample=Image.BICUBIC, translate=(dx, dy), fillcolor=int(rng.uniform(196, 214)))
    img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.45, 0.75)))
    a = np.asarray(img, dtype=np.float32)
    a += gen.normal(0, rng.uniform(4.0, 7.0), a.shape).astype(np.float32)
    specks = gen.random(a.shape) < 0.00012
    a[specks] = gen.uniform(40, 120, int(specks.sum()))
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8), mode="L")


def _pdf(scans: list[Image.Image], meta: dict) -> bytes:
    """An image-only PDF, written directly: each page one greyscale JPEG (DCTDecode) drawn over
    the whole page at the scan's resolution, no text layer, no fonts; a fixed document
    information dictionary (title, author, subject, dates of the scan) and a document id from
    the content, so nothing depends on the clock or the file's path."""
    moment = meta["received"].strftime("D:%Y%m%d112000")
    objs: list[bytes] = []

    def add(body: bytes) -> int:
        objs.append(body)
        return len(objs)

    def esc(s: str) -> bytes:
        t = s.replace("\u2014", "-").encode("latin-1", "replace").replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
        return b"(" + t + b")"

    catalog = add(b"")  # filled below
    pages_id = add(b"")
    kids = []
    wpt, hpt = PW * 72 / DPI, PH * 72 / DPI
    for s in scans:
        buf = io.BytesIO()
        s.save(buf, format="JPEG", quality=72, optimize=False, progressive=False)
        data = buf.getvalue()
        img = add(b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
                  b"/BitsPerComponent 8 /Filter /DCTDecode /Length %d >>\nstream\n" % (s.width, s.height, len(data))
                  + data + b"\nendstream")
        draw = b"q %.2f 0 0 %.2f 0 0 cm /Scan Do Q" % (wpt, hpt)
        content = add(b"<< /Length %d >>\nstream\n" % len(draw) + draw + b"\nendstream")
        kids.append(add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %.2f %.2f] /Resources << /XObject "
                        b"<< /Scan %d 0 R >> >> /Contents %d 0 R >>" % (pages_id, wpt, hpt, img, content)))
    objs[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages_id
    objs[pages_id - 1] = (b"<< /Type /Pages /Kids [" + b" ".join(b"%d 0 R" % k for k in kids)
                          + b"] /Count %d >>" % len(kids))
    info = add(b"<< /Title " + esc(meta["title"]) + b" /Author " + esc(meta["author"]) + b" /Subject "
               + esc(meta["subject"]) + b" /Creator (Scan to PDF) /Producer (factforge scanned_letter) /CreationDate ("
               + moment.encode() + b") /ModDate (" + moment.encode() + b") >>")
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, body in enumerate(objs, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % n + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1))
    for off in offsets:
        out.write(b"%010d 00000 n \n" % off)
    doc_id = hashlib.md5(b"".join(objs)).hexdigest().encode()
    out.write(b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R /ID [<%s> <%s>] >>\nstartxref\n%d\n%%%%EOF\n"
              % (len(objs) + 1, catalog, info, doc_id, doc_id, xref))
    return out.getvalue()
