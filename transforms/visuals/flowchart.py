"""visuals/flowchart: a process map (PNG, 1400 px wide, drawn with Pillow at 2x and
downsampled for smooth edges).

Title and document line, legend, a change note (earlier values of a step, dated, above the
flow), then Start -> the procedure -> End. A procedure step is drawn as what it is: its
action in a numbered box (numbered as in the procedure, so "go to step 4" points at box 4),
each "if ..." of it as a decision diamond whose "Yes" outcome sits to the side and whose
"No" continues down ("otherwise ..." as the next box), a remark after ";" as a note in the
box. The planner gives this kind procedure steps only (values belong in tables) and no
rumours (a wrong value someone believes does not belong in a controlled diagram); a fact of
another kind handed to it directly becomes a box stating what to apply. Text is dark on
white or pale fills, >= 20 px. Recovered by OCR.
"""
from __future__ import annotations

import datetime as dt
import random
import re
from pathlib import Path

from PIL import Image, ImageDraw

from facts.models import FactKind
from transforms.clock import spec_date
from transforms.common import Content, check_capacity, doc_number, plan_content, protect
from transforms.headings import section_of

from ..base import ExtractContext, Extraction, RenderContext, Transformer
from ..grammar import say
from ..plan import ArtifactSpec
from ..registry import register
from ..situations import view
from .canvas import INK, LINE, MUTED, WHITE, brand_colors, font, ocr_text, save_png, text_block, wrap


S = 2                      # supersampling factor
W = 1400
CX = 560                   # main column centre
BOX_W = 660
OUT_W = 520                # a decision's outcome box, below the diamond
OUT_GAP = 48
BYPASS_X = CX + BOX_W // 2 + 90  # the other answer's arrow, right of the main column
TEXT_W = BOX_W - 120       # text width inside a step box (clear of its border for OCR)
_TRIGGERS = ["Customer request received", "Case opened", "Customer contacts support", "Request logged",
             "Ticket assigned"]
_ENDS = ["Close the case", "Confirm with customer and close", "Update the record and close", "End of process"]
_CHECKS = [("Identity verified?", "Verify identity first"), ("Record found?", "Escalate to team lead"),
           ("Request complete?", "Ask for missing details")]
# Routine processes (a flowchart that carries no rule): steps from a grammar over the domain's
# record kinds and the desk's tools.
_NOISE_PROCESSES = {
    "Receipt request": ["{Find|Open} the <kind> in <tool>.", "{Check|Confirm} the email address on file{ with the "
                        "customer|}.", "{Re-send|Send} the receipt from the <kind> {page|record}.",
                        "{Note|Log} the {resend|request} on the case{ with the date|}."],
    "Contact details change": ["{Verify|Check} the customer's identity{ in <tool>|}.", "{Update|Change} the {email "
                               "address|phone number|postal address} on the profile.", "{Send|Trigger} a confirmation "
                               "to the {old|previous} {address|contact}.", "{Note|Record} the change on the case."],
    "Sign-in reset": ["{Confirm|Check} the customer's {email address|phone number} on file.", "{Send|Issue} a {reset "
                      "link|one-time code} from <tool>.", "{Stay on the line|Wait} until the customer {is back in|can "
                      "sign in}.", "{Log|Record} the reset on the case{ with the channel|}."],
    "Name correction": ["{Ask for|Check} the correct spelling{ against ID|}.", "{Correct|Update} the name on the <kind> "
                        "and the profile.", "{Re-issue|Send} the {confirmation|paperwork} with the new spelling.",
                        "{Note|Record} the old and new spelling on the case."],
    "Callback request": ["{Confirm|Check} the best number{ and time|} for the call.", "{Book|Schedule} the callback in "
                         "<tool>.", "{Call|Ring} the customer {at the agreed time|as booked}.", "{Note|Log} the "
                         "outcome{ and any follow-up|} on the case."],
    "Document copy request": ["{Find|Open} the <kind> the customer {means|needs}.", "{Generate|Export} a PDF {copy|of "
                              "the <kind>}{ from <tool>|}.", "{Email|Send} it to the address on file.", "{Note|Log} "
                              "what was sent on the case."],
    "Notification settings change": ["{Open|Find} the customer's {alert|notification} settings{ in <tool>|}.",
                                     "{Turn off|Reduce} the {marketing|reminder} messages{ they asked about|}.",
                                     "{Tell|Remind} the customer that {receipts|confirmations} still go out.",
                                     "{Note|Record} the change on the case."],
}
_NOISE_TOOLS = ["the CRM", "<short> Desk", "the case tool", "the back-office system"]
_SIDE = ["Standard terms apply", "Apply the general rule", "Skip this step"]


@register
class Flowchart(Transformer):
    family = "visuals"
    kind = "flowchart"
    ext = ".png"
    modality = "png"
    max_facts = 5
    weight = 0.8
    rumours = False
    fact_kinds = frozenset({FactKind.procedure_step.value})
    voices = False
    description = "Process map: start, the procedure's actions and decision diamonds, end (OCR)."

    def render(self, spec: ArtifactSpec, ctx: RenderContext, out: Path) -> None:
        check_capacity(spec, self.max_facts)
        rng = spec.rng("flowchart")
        content = plan_content(spec, ctx, rng, role="colleague", register="slide")
        save_png(_draw(spec, ctx, content, rng), out)

    def extract(self, path: Path, ctx: ExtractContext) -> Extraction:
        return Extraction(text=ocr_text(path), extractor="ocr-tesseract-psm3")


# --- a procedure step read into a flow ---------------------------------------------------------
_IF = re.compile(r"^(?:if|when)\s+(?P<c>[^,:;]{3,}?)[,:]\s+(?P<rest>.+)$", re.I)
_ASKED = re.compile(r"^(?P<q>[A-Z][^?]{4,}\?)\s+If (?P<yn>yes|no),\s+(?P<rest>.+)$")
_TRAIL_IF = re.compile(r"^(?P<a>[A-Z][^;]{6,}?) if (?P<c>[^,;]{6,})$")


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def question(cond: str) -> str:
    """A decision diamond's question from a condition clause: "the line is suspended for
    non-payment" -> "Is the line suspended for non-payment?"; "the reporting deadline has
    passed" -> "Has the reporting deadline passed?"; else the clause itself, asked ("Phone
    shows 0 bars?"). Every word of the clause is kept but a leading "the"."""
    words = cond.strip().rstrip(",.").split()
    for i in range(1, min(len(words), 7)):
        w = words[i].lower()
        nxt = words[i + 1].lower() if i + 1 < len(words) else ""
        if w in ("is", "are") or (w in ("has", "have") and re.fullmatch(r"[a-z]+(?:ed|en|ne|wn)", nxt)):
            subj = words[:i]
            if subj[0][:1].isupper() and subj[0].lower() in ("the", "a", "an", "it", "there", "this", "that"):
                subj = [subj[0].lower()] + subj[1:]
            return f"{_cap(w)} {' '.join(subj)} {' '.join(words[i + 1:])}".rstrip() + "?"
        if w in ("and", "or", "but", "with", "that", "who", "which"):
            break
    if words and words[0].lower() == "the" and len(words) > 1:
        words = words[1:]
    return _cap(" ".join(words)) + "?"


def _outcomes(rest: str) -> list[tuple[str, str, str]]:
    """'B, otherwise D' / 'B, and if C2, B2' after an "if C," -> [(question, yes, no)] with
    the first question left empty (the caller knows it)."""
    out = []
    q = ""
    while True:
        m = re.match(r"^(?P<yes>.+?),? and if (?P<c>[^,]{3,}?), (?P<rest>.+)$", rest)
        if m:
            out.append((q, m.group("yes"), ""))
            q, rest = question(m.group("c")), m.group("rest")
            continue
        yes, _, no = rest.partition(", otherwise ")
        out.append((q, yes, no))
        return out


def procedure(statement: str) -> list[tuple[str, tuple]]:
    """A procedure step as flow elements: ("act", (text, note)) for its action (the first
    one carries the step's number), ("decide", (question, outcome, "Yes" or "No")) for each
    condition with the outcome drawn to its side, ("act", (text, "")) for what happens
    otherwise. Every word of the statement stays
    in the drawing (the step is recovered from it), in the procedure's order."""
    text = statement.strip()
    text = text[:-1] if text.endswith(".") else text
    els: list[tuple[str, tuple]] = []

    def decisions(q: str, rest: str) -> None:
        for q2, yes, no in _outcomes(rest):
            els.append(("decide", (q2 or q, _cap(yes), "Yes")))
            if no:
                els.append(("act", (_cap(no), "")))

    m = _ASKED.match(text)
    if m:
        els.append(("decide", (m.group("q"), _cap(m.group("rest")), _cap(m.group("yn").lower()))))
        return els
    head, sep, tail = text.partition("; ")
    cond = _IF.match(tail) if sep else None
    note = _cap(tail) + "." if sep and not cond else ""
    m = _IF.match(head)
    if m and not cond:
        decisions(question(m.group("c")), m.group("rest"))
        if note:  # a remark on the outcome ("...; it must be rerun after every change")
            q, side, side_label = els[-1][1] if els[-1][0] == "decide" else ("", "", "")
            if els[-1][0] == "decide":
                els[-1] = ("decide", (q, f"{side}. {note}", side_label))
            else:
                els[-1] = ("act", (els[-1][1][0], note))
        return els
    t = _TRAIL_IF.match(head) if not sep else None
    if t:
        els.append(("decide", (question(t.group("c")), _cap(t.group("a")), "Yes")))
        return els
    els.append(("act", (head + ("" if cond or note else "."), note)))
    if cond:
        decisions(question(cond.group("c")), cond.group("rest"))
    return els


def _number(fact, ctx: RenderContext) -> int:
    """The step's number in its procedure (its section's steps in policy order). Only the
    facts whose id names the same section are read (an id carries its section's slug), so an
    edit elsewhere in the policy does not re-render this map."""
    sec = fact.id.rsplit(".", 2)[-2] if fact.id.count(".") >= 2 else None
    same = [ctx.facts[k] for k in ctx.facts.keys() if sec is None or k.rsplit(".", 2)[-2:-1] == [sec]]
    steps = sorted((f for f in same if f.kind == FactKind.procedure_step and f.section == fact.section),
                   key=lambda f: (f.source.file, f.source.start_line, f.id))
    ids = [f.id for f in steps]
    return ids.index(fact.id) + 1 if fact.id in ids else 0


class _TextLater:
    """Wraps the 2x ImageDraw: shapes are drawn at once, text is recorded and drawn at 1x on
    the downsampled image (crisper glyphs for OCR than resampled ones)."""

    def __init__(self, draw: ImageDraw.ImageDraw):
        self._draw = draw
        self.texts: list[tuple] = []

    def __getattr__(self, name):
        return getattr(self._draw, name)

    def text(self, xy, text, font, fill, anchor=None):
        self.texts.append((xy, text, font, fill, anchor))

    def replay(self, img: Image.Image) -> None:
        d = ImageDraw.Draw(img)
        for (x, y), text, f, fill, anchor in self.texts:
            d.text((round(x / S), round(y / S)), text, font=font(f.size // S, "Bold" in f.path), fill=fill,
                   anchor=anchor)


def _f(size: int, bold: bool = False):
    return font(size * S, bold)


def _tb(draw, x, y, text, size, fill, width, bold=False, spacing=1.3, align="left") -> int:
    """text_block in final-pixel units (draw at S scale). Returns height in final pixels."""
    h = text_block(draw, x * S, y * S, text, _f(size, bold), fill, width * S, spacing, align)
    return h // S


def _balanced(text: str, size: int, width: int, bold: bool = True) -> int:
    """The narrowest width that wraps `text` into as few lines as `width` does: lines of
    even length (a lone short last line in a diamond is what OCR drops)."""
    f = _f(size, bold)
    n = len(wrap(text, f, width * S))
    w = width
    while w > 120 and len(wrap(text, f, (w - 10) * S)) == n:
        w -= 10
    return w


def _arrow(d: ImageDraw.ImageDraw, pts: list[tuple[int, int]], col=(70, 80, 96), label: str = "") -> None:
    sp = [(x * S, y * S) for x, y in pts]
    d.line(sp, fill=col, width=3 * S, joint="curve")
    (x0, y0), (x1, y1) = sp[-2], sp[-1]
    a = 9 * S
    if x0 == x1:
        sgn = 1 if y1 > y0 else -1
        head = [(x1, y1), (x1 - a, y1 - sgn * a * 1.4), (x1 + a, y1 - sgn * a * 1.4)]
    else:
        sgn = 1 if x1 > x0 else -1
        head = [(x1, y1), (x1 - sgn * a * 1.4, y1 - a), (x1 - sgn * a * 1.4, y1 + a)]
    d.polygon(head, fill=col)
    if label:
        lx, ly = pts[0]
        horizontal = pts[0][1] == pts[1][1]
        # above a horizontal arrow, beside a vertical one: never touching a box's text
        d.text(((lx + 16) * S, (ly - 28 if horizontal else ly + 4) * S), label, font=_f(18, True), fill=MUTED)


def _noise_process(spec: ArtifactSpec) -> str:
    """Which routine process a flowchart without a rule maps (by the spec's own seed)."""
    names = sorted(_NOISE_PROCESSES)
    return names[spec.rng("noise-process").randrange(len(names))]


def _elements(spec: ArtifactSpec, ctx: RenderContext, content: Content, rng: random.Random) -> list[tuple[str, object]]:
    """The main column: start, the procedure (or a noise process), end. Payloads: start/end
    text; check (question, side outcome); step (label, text, note, number or 0, group);
    decide (question, side outcome, side label, group)."""
    facts = [it.fact for it in content.items]
    check_q, check_no = rng.choice(_CHECKS)
    elems: list[tuple[str, object]] = [("start", rng.choice(_TRIGGERS))]
    if spec.noise:
        elems.append(("check", (check_q, check_no)))
        steps = _NOISE_PROCESSES[_noise_process(spec)]
        recs = view(ctx.db).records
        docs = sorted({r.kind for r in recs if r.kind and r.internal})  # what a copy or a receipt is of
        kinds = (docs if "copy" in _noise_process(spec).lower() or "receipt" in _noise_process(spec).lower() else
                 sorted({r.kind for r in recs if r.kind})) or ["record"]
        slots = {"kind": rng.choice(kinds),
                 "tool": rng.choice(_NOISE_TOOLS).replace("<short>", ctx.pack.brand.short_name or ctx.pack.brand.company)}
        for i in sorted(rng.sample(range(len(steps)), 3)):
            elems.append(("step", ("", say(steps[i], rng, slots), "", 0, None)))
        elems.append(("end", rng.choice(_ENDS)))
        return elems
    prev = None
    drawn: set[str] = set()
    for it in content.items:
        said = " ".join(it.fact.statement.lower().split())
        if it.fact.kind == FactKind.procedure_step and said in drawn:
            continue  # the same step from two source documents: one box carries both
        drawn.add(said)
        conds = [c for c in it.fact.conditions if c.attribute != "attribute"]
        key = (conds[0].attribute, conds[0].value) if conds else None
        if key is not None and key != prev:
            elems.append(("decide", (f"{key[0][:1].upper() + key[0][1:]}: {key[1]}?", rng.choice(_SIDE), "No",
                                     key)))
        prev = key
        if it.fact.kind != FactKind.procedure_step:
            # not a step (the planner never sends one): a box stating what to apply, not the
            # policy sentence
            text = f"{rng.choice(['Apply', 'Quote', 'Use'])} {it.label}: {it.value}" if it.value else it.text
            elems.append(("step", ("", protect(text, facts), "", 0, key)))
            continue
        number = _number(it.fact, ctx)
        first = True
        for kind, p in procedure(it.fact.statement):
            if kind == "act":
                text, note = p
                elems.append(("step", ("", protect(text, facts), protect(note, facts), number if first else 0, key)))
            else:
                q, side, side_label = p
                last = elems[-1]
                if last[0] == "decide" and last[1][0] == q and last[1][2] != side_label:
                    # the other branch of the question just asked: the box below its diamond
                    elems.append(("step", ("", protect(side, facts), "", 0, key)))
                else:
                    elems.append(("decide", (q, protect(side, facts), side_label, key)))
            first = False
    elems.append(("end", rng.choice(_ENDS)))
    return elems


def _change_notes(content: Content, ctx: RenderContext) -> list[str]:
    """A revision line per superseded value of a step ("Step 3 until 2025-10-20: 20 seconds
    (no longer the case)"), and the superseded mentions of facts not drawn here. Rumours are
    not drawn: a wrong value someone believes has no place in a controlled diagram (the
    planner gives this kind none)."""
    out = []
    for it in content.items:
        n = _number(it.fact, ctx) if it.fact.kind == FactKind.procedure_step else 0
        for h in it.superseded_hedges:
            d = h.distractor
            where = f"Step {n}" if n else (it.label or "This map")
            out.append(f"{where} until {d.date or 'the last revision'}: {d.text} (no longer the case)." if d.text
                       else h.text)
    out += [h.text for h in content.orphans if h.distractor.role == "superseded"]
    return out


def _legend(d: "_TextLater", dark, tint) -> None:
    """The legend in the top right corner: start / end, step, decision."""
    lx, ly = W - 300, 30
    d.rounded_rectangle((lx * S, ly * S, (W - 40) * S, (ly + 100) * S), radius=8 * S, outline=LINE, width=S)
    d.rounded_rectangle(((lx + 14) * S, (ly + 14) * S, (lx + 54) * S, (ly + 34) * S), radius=10 * S, fill=tint,
                        outline=dark, width=S)
    d.text(((lx + 64) * S, (ly + 12) * S), "Start / end", font=_f(16), fill=MUTED)
    d.rectangle(((lx + 14) * S, (ly + 42) * S, (lx + 54) * S, (ly + 60) * S), outline=dark, width=S)
    d.text(((lx + 64) * S, (ly + 40) * S), "Step", font=_f(16), fill=MUTED)
    dx, dy = lx + 34, ly + 80
    d.polygon([(dx * S, (dy - 11) * S), ((dx + 20) * S, dy * S), (dx * S, (dy + 11) * S), ((dx - 20) * S, dy * S)],
              outline=dark, width=S)
    d.text(((lx + 64) * S, (ly + 68) * S), "Decision", font=_f(16), fill=MUTED)


def _draw(spec: ArtifactSpec, ctx: RenderContext, content: Content, rng: random.Random) -> Image.Image:
    brand, w = ctx.pack.brand, ctx.writer
    dark, tint = brand_colors(brand.company)
    date = spec_date(spec)
    items = content.items
    secs = list(dict.fromkeys(section_of(it.fact, "Process") for it in items))
    title = spec.title or (f"{secs[0]} process map" if secs else f"{_noise_process(spec)} process map")
    elems = _elements(spec, ctx, content, rng)

    def step_h(p) -> int:
        label, text, note = p[0], p[1], p[2]
        h = 22
        if label:
            h += _tb(None, 0, 0, label, 22, None, TEXT_W, bold=True, spacing=1.25) + 6
        h += _tb(None, 0, 0, text, 22, None, TEXT_W)
        if note:
            h += 8 + _tb(None, 0, 0, note, 20, None, TEXT_W)
        return max(h + 22, 78)

    def outcome_h(text: str) -> int:
        return _tb(None, 0, 0, text, 20, None, OUT_W - 48) + 36

    def diamond_h(q: str) -> int:
        return max(150, _tb(None, 0, 0, q, 22, None, 300, bold=True) * 2 + 40)

    heights = []
    for kind, p in elems:
        if kind in ("start", "end"):
            heights.append(64)
        elif kind in ("check", "decide"):
            heights.append(diamond_h(p[0]) + OUT_GAP + outcome_h(p[1]))
        else:
            heights.append(step_h(p))
    notes = _change_notes(content, ctx)
    note_h = (sum(_tb(None, 0, 0, n, 22, None, W - 160) + 8 for n in notes) + 64) if notes else 0
    top = 160 + note_h
    gap = 56
    H = top + sum(heights) + gap * (len(elems) - 1) + 120
    img = Image.new("RGB", (W * S, H * S), WHITE)
    d = _TextLater(ImageDraw.Draw(img))

    # Title block and legend
    d.rectangle((0, 0, W * S, 10 * S), fill=dark)
    d.text((60 * S, 34 * S), title, font=_f(34, True), fill=INK)
    ref = doc_number(ctx, rng, "PM")
    owner = w.person(rng, "manager")
    d.text((60 * S, 88 * S), f"{brand.short_name or brand.company}  |  {ref}  |  Owner: {owner}  |  Revised {date.isoformat()}",
           font=_f(18), fill=MUTED)
    _legend(d, dark, tint)

    if notes:
        d.rounded_rectangle((60 * S, 142 * S, (W - 60) * S, (142 + note_h - 16) * S), radius=10 * S,
                            fill=(255, 247, 225), outline=(232, 180, 70), width=S)
        d.text((80 * S, 156 * S), "Change note", font=_f(22, True), fill=INK)
        ny = 192
        for n in notes:
            ny += _tb(d, 80, ny, n, 22, INK, W - 160) + 8

    y = top
    for idx, ((kind, p), h) in enumerate(zip(elems, heights)):
        bypass = ""  # a decision's other branch: an arrow round its outcome, to the next element
        if kind in ("start", "end"):
            label = ("Start: " if kind == "start" else "End: ") + str(p)
            bw = max(420, int(_f(22, True).getlength(label) / S) + 80)
            d.rounded_rectangle(((CX - bw // 2) * S, y * S, (CX + bw // 2) * S, (y + h) * S), radius=32 * S,
                                fill=tint, outline=dark, width=2 * S)
            d.text((CX * S, (y + h // 2) * S), label, font=_f(22, True), fill=INK, anchor="mm")
        elif kind in ("check", "decide"):
            # the diamond; the outcome of one answer right below it (the main column, so OCR
            # reads question and outcome together); the other answer bypasses it on the right
            q, side = p[0], p[1]
            side_label = p[2] if kind == "decide" else "No"
            bypass = "No" if side_label == "Yes" else "Yes"
            dh = diamond_h(q)
            qw = _balanced(q, 22, 300)
            qh = _tb(None, 0, 0, q, 22, None, qw, bold=True)
            hw = 230 if dh <= 150 else 270
            cy = y + dh // 2
            d.polygon([(CX * S, y * S), ((CX + hw) * S, cy * S), (CX * S, (y + dh) * S), ((CX - hw) * S, cy * S)],
                      fill=(250, 251, 253), outline=dark, width=2 * S)
            _tb(d, CX - qw // 2, cy - qh // 2 - 2, q, 22, INK, qw, bold=True, align="center")
            oy = y + dh + OUT_GAP
            _arrow(d, [(CX, y + dh), (CX, oy)], label=side_label)
            d.rounded_rectangle(((CX - OUT_W // 2) * S, oy * S, (CX + OUT_W // 2) * S, (y + h) * S), radius=10 * S,
                                fill=(246, 248, 251), outline=(150, 158, 170), width=2 * S)
            _tb(d, CX - OUT_W // 2 + 24, oy + 18, side, 20, (60, 68, 80), OUT_W - 48, align="center")
            if idx < len(elems) - 1:
                mid = y + h + gap // 2
                d.line([((CX + hw) * S, cy * S), (BYPASS_X * S, cy * S), (BYPASS_X * S, mid * S),
                        ((CX + 6) * S, mid * S)], fill=(70, 80, 96), width=3 * S, joint="curve")
                d.text(((CX + hw + 16) * S, (cy - 28) * S), bypass, font=_f(18, True), fill=MUTED)
                _arrow(d, [(CX, mid), (CX, y + h + gap)])
        else:
            label, text, note, number, group = p
            x0 = CX - BOX_W // 2
            d.rectangle(((x0 + 4) * S, (y + 5) * S, (x0 + BOX_W + 4) * S, (y + h + 5) * S), fill=(228, 232, 238))
            d.rectangle((x0 * S, y * S, (x0 + BOX_W) * S, (y + h) * S), fill=WHITE, outline=dark, width=2 * S)
            if number:
                d.ellipse(((x0 + 18) * S, (y + 20) * S, (x0 + 56) * S, (y + 58) * S), fill=dark)
                d.text(((x0 + 37) * S, (y + 39) * S), str(number), font=_f(20, True), fill=WHITE, anchor="mm")
            ty = y + 22
            if label:
                ty += _tb(d, x0 + 72, ty, label, 22, INK, TEXT_W, bold=True, spacing=1.25) + 6
            ty += _tb(d, x0 + 72, ty, text, 22, (40, 46, 58), TEXT_W)
            if note:
                _tb(d, x0 + 72, ty + 8, note, 20, MUTED, TEXT_W)
        if idx < len(elems) - 1 and not bypass:
            _arrow(d, [(CX, y + h), (CX, y + h + gap)])
        y += h + gap

    valid = (date - dt.timedelta(days=rng.randint(0, 20))).isoformat()  # document control, as labelled fields
    d.text((60 * S, (H - 50) * S), f"Source: {brand.short_name or brand.company} process library  |  Status: "
           f"uncontrolled when printed  |  Valid from: {valid}", font=_f(16), fill=MUTED)
    small = img.resize((W, H), Image.LANCZOS)
    d.replay(small)
    return small
