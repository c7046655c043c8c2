"""visuals/chart: an operations dashboard exported as a PNG, drawn with matplotlib (Agg).

What a team's reporting tool shows on a wall screen: a title band (company, dashboard name,
reporting period, "updated" stamp), a row of KPI tiles, the fact panels and two or three
routine panels from the seed database (records by status, the busiest routes or products,
contacts per day). A fact's value is printed nowhere in a sentence; it is read off the chart:

- **catalog cells** of one section ("Main — Wayfarer: $99") become a grouped bar chart with
  a value label on every bar and, beside it, a small table (rows down the side, columns
  across) with the same figures;
- **value facts** with one figure and a short label ("Extra checked bag in Lite or Main: $45")
  become a KPI tile (caption and big figure), or, two or more of one section and unit, a
  horizontal bar chart with the label left of each bar and the figure at its end.

`Chart.carries` says which facts can be shown this way (the planner asks it): a value fact
with one figure whose label, panel title and figure alone let the audits' matcher recover it
(checked with `facts.match` on the words the panel prints). Anything else handed over anyway
is printed in a "Notes" panel as its statement. A dashboard states current figures only: no
rumours (`rumours = False`); an earlier figure is a dated "changed since" note under the title.

Deterministic: fixed DejaVu font files (the same ones the other visual kinds use, passed to
every text element), fixed rcParams (`svg.hashsalt`, no path simplification surprises), the
Agg canvas read back as raw RGBA and written by Pillow without metadata chunks.

Extraction: tesseract on the picture in sparse-text mode (psm 11), words put back into lines
by their position (`transforms.extract.ocr.ocr_layout`), so a bar's label and the figure at its
end, or a table row's label and its cells, come back on one line as a reader sees them.
"""
from __future__ import annotations

import datetime as dt
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Optional

from facts.bounds import bound_of
from facts.match import keeps_bounds, matches
from facts.models import Fact, Slot, SlotType
from facts.surface import fmt_num
from transforms.clock import fmt_date, spec_date
from transforms.common import Content, check_capacity, font_file, plan_content
from transforms.extract.ocr import ocr_layout
from transforms.headings import condition_values, section_of

from ..base import ExtractContext, Extraction, RenderContext, Transformer
from ..headings import fact_label
from ..plan import ArtifactSpec
from ..reading import read
from ..registry import register
from ..situations import view
from .canvas import brand_colors, save_png


DPI = 100
PSMS = (4, 6)  # tesseract page segmentations each panel is read in (transforms.extract.ocr.ocr_layout)
W = 1600  # px
_FIGURE_TYPES = (SlotType.money, SlotType.percent, SlotType.duration, SlotType.count)
_BOARDS = ["Service dashboard", "Operations overview", "Weekly service report", "Customer operations",
           "Front-line KPIs", "Service desk dashboard"]
_UNIT_WORD = re.compile(r"^\s+(lb|lbs|kg|oz|inches|linear inches|cm|GB|MB|TB|kbps|Mbps|km|"
                        r"(?!qualifying\b)[a-z]{3,}[^su\W]s)\b")
INK = "#1c222e"
MUTED = "#586273"
GRID = "#e3e7ee"
PANEL = "#ffffff"
PAGE = "#f2f4f7"


# --- which facts a chart shows, and how -------------------------------------------------------
@dataclass(frozen=True)
class Figure:
    """How one fact is drawn: `cell` (row, column, value of a catalog table) or `single` (a
    caption and a figure). `group`: the panel it belongs to; `measure`: the slot's kind and
    unit (bars of one panel share it)."""

    fact_id: str
    how: str               # "cell" | "single"
    group: str             # panel title: the catalog's section, or the fact's section
    row: str               # cell row / single caption
    col: str               # cell column ("" for single)
    value: str             # the figure as printed ("$99", "2 bags", "13 months")
    number: float          # bar length
    measure: tuple = ()


def _figure_slot(fact: Fact) -> Optional[Slot]:
    nums = [s for s in fact.slots if s.type in _FIGURE_TYPES]
    if len(nums) != 1 or not isinstance(nums[0].value, (int, float)) or nums[0].value_max is not None:
        return None
    return nums[0]


def _printed(fact: Fact, slot: Slot) -> list[str]:
    """Ways to print the figure, best first: in digits (a dashboard writes "3", not "three"),
    with the unit noun the statement puts after it ("5 bags", "50 lb"), then the slot's own
    text."""
    out = []
    i = fact.statement.find(slot.text)
    digits = fmt_num(slot.value) if slot.type == SlotType.count and slot.text.isalpha() else slot.text
    if i >= 0 and slot.type == SlotType.count and not slot.unit:
        m = _UNIT_WORD.match(fact.statement[i + len(slot.text):])
        if m:
            out += [f"{digits} {m.group(1)}", f"{slot.text} {m.group(1)}"]
    out += [digits, slot.text]
    # a lone "0" at a bar's end is the one figure tesseract misreads ("90", "Oo", nothing)
    # however far from the axis it is printed; "0 bags", "$0", "0%" read well
    return [p for p in dict.fromkeys(out) if p != "0"]


_HEAD = re.compile(r"^(?:(?:the|a|an|each|every|all|any)\s+)?(.+?)\s+(?:is|are|must|may|can|will|requires?|gets?|"
                   r"receives?|costs?|lasts?|includes?|has|have)\b", re.I)


def _head(statement: str) -> str:
    """The statement's subject when it is a short name ("Voyager status", "A passenger"), else
    ""."""
    m = _HEAD.match(statement)
    if not m:
        return ""
    head = m.group(1).strip(" ,")
    if len(head.split()) > 4 or re.search(r"[,;:]|\d", head):
        return ""
    return head[:1].upper() + head[1:]


@lru_cache(maxsize=8192)
def _figure_cached(fact: Fact) -> Optional[Figure]:
    if fact.kind.value != "value":
        return None
    slot = _figure_slot(fact)
    if slot is None:
        return None
    section = section_of(fact, "")
    measure = (slot.type.value, slot.unit or "")
    r = read(fact)
    if r.cell:
        row, col, val = r.cell["row"].strip(), r.cell["col"].strip(), r.cell["val"].strip().rstrip(".")
        for printed in dict.fromkeys([val] + _printed(fact, slot)):
            # what the panel prints near the figure: its title, the column header, the row label
            if matches(fact, f"{section}\n{col}\n{row} {printed}") and \
                    keeps_bounds(fact, f"{section}\n{col}\n{row} {printed}"):
                return Figure(fact.id, "cell", section or col, row, col, printed, float(slot.value), measure)
        return None
    label = fact_label(fact)
    head = _head(fact.statement)
    conds = [c for c in condition_values(fact) if c.lower() not in label.lower()]
    if label and conds:  # what the figure is for, as the writer's bullets say it
        label = f"{label} ({', '.join(conds)})"
    elif label and head and not set(head.lower().split()) <= set(label.lower().split()):
        # the statement's subject names what the figure is for ("Voyager status"): the label
        # alone ("qualifying miles in a calendar year") would be the same for every tier
        label = f"{head} \u2014 {label[:1].lower() + label[1:] if not label[:2].isupper() else label}"
    b = bound_of(fact, slot)
    if label and b.kind and not keeps_bounds(fact, f"{label}\n{slot.text}"):
        # a cap or a floor is said on the panel ("Max financed devices at the same time")
        word = "max" if b.kind == "max" else "min"
        head, dash, rest = label.rpartition(" \u2014 ")
        rest = rest if rest[:2].isupper() else rest[:1].lower() + rest[1:]
        label = f"{head}{dash}{word} {rest}" if dash else f"{word.capitalize()} {rest}"
    words = label.split()
    if not label or len(words) < 3 or len(words) > 9 or words[0].lower() in _PREPOSITIONS \
            or words[-1].lower() in _PREPOSITIONS | {"a", "an", "the", "receives", "gets", "is", "are"}:
        return None
    for printed in _printed(fact, slot):
        if matches(fact, f"{label}\n{printed}") and keeps_bounds(fact, f"{label}\n{printed}"):
            # bars of one panel share a unit: "5" bags and "50 lb" are not drawn on one axis
            unit = measure[1] or (printed.split(" ", 1)[1] if " " in printed else "")
            return Figure(fact.id, "single", section, label, "", printed, float(slot.value), (measure[0], unit))
    return None


_PREPOSITIONS = {"for", "of", "to", "in", "on", "at", "by", "with", "from", "before", "after", "within", "when", "if",
                 "ago", "and", "or", "than"}


def figure(fact: Fact) -> Optional[Figure]:
    """How a dashboard draws `fact`, or None when it cannot show it as a labelled figure."""
    try:
        return _figure_cached(fact)
    except TypeError:  # an unhashable fact model: compute directly
        return _figure_cached.__wrapped__(fact)


@register
class Chart(Transformer):
    family = "visuals"
    kind = "chart"
    ext = ".png"
    modality = "png"
    max_facts = 12
    weight = 0.8
    rumours = False  # a dashboard shows current figures; what people believe goes to conversations
    voices = False   # figures are labels, not sentences
    fact_kinds = frozenset({"value"})
    description = "Operations dashboard (matplotlib PNG): KPI tiles, labelled bar charts and tables, routine panels (OCR)."

    @classmethod
    def carries(cls, fact: Fact) -> bool:
        return figure(fact) is not None

    def render(self, spec: ArtifactSpec, ctx: RenderContext, out: Path) -> None:
        check_capacity(spec, self.max_facts)
        rng = spec.rng("chart")
        content = plan_content(spec, ctx, rng, role="colleague", register="table")
        save_png(_draw(spec, ctx, content, rng), out)

    def extract(self, path: Path, ctx: ExtractContext) -> Extraction:

        return Extraction(text=_zeros(ocr_layout(path, psms=PSMS)),
                          extractor="ocr-tesseract-panels-psm" + "+".join(map(str, PSMS)))


# A capital O standing alone before a unit word or a per cent sign, or after a currency sign, is
# the digit zero in a figure (DejaVu Sans Bold draws them alike: "O passes", "$O"); a label or a
# figure on a dashboard never reads that way in English.
_ZERO = re.compile(r"(?<![\w.,'])O(?=(?:\.\d+)?%|\s+[a-z]{2,}\b)|(?<=[$\u20ac\u00a3])O(?![\w])")


def _zeros(text: str) -> str:
    return _ZERO.sub("0", text)


# --- drawing ---------------------------------------------------------------------------------
def _fp(size: float, bold: bool = False):
    from matplotlib.font_manager import FontProperties  # noqa: PLC0415  (heavy; loaded on first use)

    return FontProperties(fname=font_file("sans", bold), size=size)


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#%02x%02x%02x" % rgb


def _palette(dark: str, n: int) -> list[str]:
    base = [dark, "#3b82c4", "#e08a2e", "#5aa469", "#a05bb5", "#c2474b", "#6b7280", "#2a9d8f"]
    return [base[i % len(base)] for i in range(n)]


@dataclass
class _Panel:
    kind: str                        # "cells" | "bars" | "notes" | routine kinds
    title: str
    height: int                      # px
    figures: list[Figure] = field(default_factory=list)
    data: list = field(default_factory=list)
    note: str = ""


def _fact_panels(content: Content) -> tuple[list[Figure], list[_Panel]]:
    """(KPI tiles, fact panels) for the items the chart states."""
    tiles: list[Figure] = []
    panels: list[_Panel] = []
    cells: dict[str, list[Figure]] = {}
    singles: dict[tuple, list[Figure]] = {}
    notes: list[str] = []
    for it in content.items:
        if not it.current:
            continue
        fig = figure(it.fact)
        if fig is None:
            notes.append(it.text or it.fact.statement)
        elif fig.how == "cell":
            cells.setdefault(fig.group, []).append(fig)
        else:
            singles.setdefault((fig.group, fig.measure), []).append(fig)
    for group, figs in cells.items():
        rows = list(dict.fromkeys(f.row for f in figs))
        cols = list(dict.fromkeys(f.col for f in figs))
        if len({f.measure for f in figs}) == 1 and len(cols) <= 5:
            panels.append(_Panel("cells", group, max(380, 150 + 48 * len(rows)), figs))
        else:  # products with attributes of several kinds: attributes down the side
            blocks = -(-len(cols) // BLOCK)
            panels.append(_Panel("catalog", group, max(380, 110 + 42 * len(cols) + 60 * blocks), figs))
    for (group, measure), figs in singles.items():
        if len(figs) == 1:
            tiles.append(figs[0])
        else:
            panels.append(_Panel("bars", group, 120 + 62 * len(figs), figs))
    seen: Counter = Counter()
    for p in panels:  # two panels of one section: the second says what it measures
        seen[p.title] += 1
        if seen[p.title] > 1 and p.figures:
            p.title += {"money": " \u2014 charges", "percent": " \u2014 rates",
                        "duration": " \u2014 time limits"}.get(p.figures[0].measure[0], " \u2014 limits")
    if notes:
        panels.append(_Panel("notes", "Notes", 90 + 34 * sum(1 + len(n) // 120 for n in notes), data=notes))
    return tiles, panels


def _routine(ctx: RenderContext, spec: ArtifactSpec, rng: random.Random) -> tuple[list[tuple[str, str]], list[_Panel]]:
    """Routine KPI tiles and panels from the seed database (counts only: no money or percent
    figure that could be read as a policy value), else seeded service-desk traffic."""
    v = view(ctx.db)
    day = spec_date(spec)
    tiles: list[tuple[str, str]] = []
    panels: list[_Panel] = []
    kinds = Counter(r.kind for r in v.records)
    if kinds:
        kind, n = kinds.most_common(1)[0]
        recs = [r for r in v.records if r.kind == kind]
        noun = kind.title() + "s"
        tiles.append((f"{noun} on file", f"{n:,}"))
        if v.customers:
            tiles.append(("Customers with records", f"{len(v.with_records()):,}"))
        status = Counter(r.status.replace("_", " ") for r in recs if r.status)
        if len(status) >= 2:
            panels.append(_Panel("status", f"{noun} by status", 340, data=status.most_common(6)))
        labels = Counter((r.route or r.label) for r in recs if (r.route or r.label))
        if len(labels) >= 3:
            what = "routes" if any(r.route for r in recs) else "items"
            panels.append(_Panel("top", f"Busiest {what} ({kind}s)", 340, data=labels.most_common(5)))
    days = [day - dt.timedelta(days=13 - i) for i in range(14)]
    base = rng.randint(120, 260)
    contacts = [max(10, int(base * (0.55 if d.weekday() >= 5 else 1.0) + rng.randint(-25, 25))) for d in days]
    what = rng.choice([("Contacts", "handled"), ("Chats", "answered"), ("Calls", "answered"), ("Emails", "answered"),
                       ("Cases", "closed"), ("Contacts", "resolved")])
    team = rng.choice(["", ", all queues", ", front line", ", day shift", ", team " + rng.choice("ABCD")])
    panels.append(_Panel("line", f"{what[0]} {what[1]} per day{team}", 340, data=list(zip(days, contacts))))
    # the window by its first day, not "(14 days)": a duration on every dashboard read as the
    # value of any 14-day rule near a matching word ("device": the 14-day device return a
    # client held was found "present" on a chart that never stated it)
    tiles.append((f"{what[0]} since {days[0]:%b} {days[0].day}", f"{sum(contacts):,}"))
    if not kinds:
        channels = [("Chat", rng.randint(300, 900)), ("Email", rng.randint(200, 600)), ("Phone", rng.randint(150, 500))]
        panels.append(_Panel("status", "Contacts by channel", 340, data=channels))
        tiles.append(("Open tickets", f"{rng.randint(12, 90):,}"))
    rng.shuffle(panels)
    return tiles, panels[:3]


class _Board:
    """A matplotlib figure addressed in px from the top-left corner."""

    def __init__(self, height: int):
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: PLC0415  (heavy; loaded on first use)
        from matplotlib.figure import Figure as MplFigure  # noqa: PLC0415  (heavy; loaded on first use)

        self.H = height
        self.fig = MplFigure(figsize=(W / DPI, height / DPI), dpi=DPI, facecolor=PAGE)
        FigureCanvasAgg(self.fig)

    def box(self, x: float, y: float, w: float, h: float) -> list[float]:
        return [x / W, 1 - (y + h) / self.H, w / W, h / self.H]

    def axes(self, x: float, y: float, w: float, h: float):
        return self.fig.add_axes(self.box(x, y, w, h))

    def rect(self, x: float, y: float, w: float, h: float, fill: str, edge: str = "none", rounded: bool = False,
             z: float = -1) -> None:
        """A filled box; below the axes (zorder 0) unless `z` says otherwise."""
        from matplotlib.patches import FancyBboxPatch  # noqa: PLC0415  (heavy; loaded on first use)

        style = "round,pad=0,rounding_size=0.004" if rounded else "square,pad=0"
        self.fig.patches.append(FancyBboxPatch((x / W, 1 - (y + h) / self.H), w / W, h / self.H,
                                               transform=self.fig.transFigure, boxstyle=style, facecolor=fill,
                                               edgecolor=edge, linewidth=1.0, zorder=z))

    def card(self, x: float, y: float, w: float, h: float, fill: str = PANEL) -> None:
        self.rect(x, y, w, h, fill, "#d6dce6", rounded=True, z=-2)

    def hline(self, x0: float, x1: float, y: float, color: str) -> None:
        from matplotlib.lines import Line2D  # noqa: PLC0415  (heavy; loaded on first use)

        self.fig.lines.append(Line2D([x0 / W, x1 / W], [1 - y / self.H] * 2, color=color, linewidth=1.0,
                                     transform=self.fig.transFigure))

    def text(self, x: float, y: float, s: str, size: float, bold: bool = False, color: str = INK,
             ha: str = "left", va: str = "top") -> None:
        self.fig.text(x / W, 1 - y / self.H, s, fontproperties=_fp(size, bold), color=color, ha=ha, va=va)

    def image(self):
        from PIL import Image  # noqa: PLC0415  (heavy; loaded on first use)

        self.fig.canvas.draw()
        w, h = self.fig.canvas.get_width_height()
        return Image.frombuffer("RGBA", (w, h), bytes(self.fig.canvas.buffer_rgba()), "raw", "RGBA", 0, 1).convert("RGB")


_RC = {
    "svg.hashsalt": "factforge", "path.simplify": False, "text.hinting": "default", "text.hinting_factor": 8,
    "text.antialiased": True, "lines.antialiased": True, "patch.antialiased": True, "axes.unicode_minus": False,
    "font.family": "sans-serif", "font.sans-serif": ["DejaVu Sans"], "figure.dpi": DPI, "savefig.dpi": DPI,
    "axes.edgecolor": GRID, "axes.linewidth": 1.0, "xtick.color": MUTED, "ytick.color": MUTED,
    "xtick.labelsize": 13, "ytick.labelsize": 13,
}
M = 36    # outer margin, px
BLOCK = 5  # lines of a catalog table under one header of product names
GAP = 28  # between rows of panels


def _draw(spec: ArtifactSpec, ctx: RenderContext, content: Content, rng: random.Random):
    import matplotlib  # noqa: PLC0415  (heavy; loaded on first use)

    with matplotlib.rc_context(_RC):
        return _draw_board(spec, ctx, content, rng)


def _draw_board(spec: ArtifactSpec, ctx: RenderContext, content: Content, rng: random.Random):
    brand = ctx.pack.brand
    dark_rgb, _tint = brand_colors(brand.company)
    dark = _hex(dark_rgb)
    day = spec_date(spec)
    tiles, fact_panels = _fact_panels(content) if not spec.noise else ([], [])
    r_tiles, r_panels = _routine(ctx, spec, rng)
    notes = [h.text for h in content.hedges if h.distractor.role == "superseded"]
    board = rng.choice(_BOARDS)
    if spec.title and not spec.noise:
        board = f"{spec.title.split(' / ')[-1]} \u2014 {board[:1].lower() + board[1:]}"

    # KPI tiles: the facts' first, routine ones to fill the row of four
    tile_specs: list[tuple[str, str, bool]] = [(t.row, t.value, True) for t in tiles]
    for cap, val in r_tiles:
        if len(tile_specs) >= 4 and len(tile_specs) % 4 == 0:
            break
        tile_specs.append((cap, val, False))
    tile_rows = -(-len(tile_specs) // 4)
    header_h, tile_h, footer_h = 120, 150, 60
    note_h = 46 * len(notes) + (20 if notes else 0)
    routine_h = max((p.height for p in r_panels), default=0)
    H = (header_h + note_h + tile_rows * (tile_h + GAP) + sum(p.height + GAP for p in fact_panels)
         + (routine_h + GAP if r_panels else 0) + footer_h)
    b = _Board(H)

    # header band: dark text on white under a brand-coloured rule (no text on a dark fill)
    b.rect(0, 0, W, 96, PANEL)
    b.rect(0, 0, W, 8, dark)
    b.hline(0, W, 96, "#d6dce6")
    b.text(M, 24, f"{brand.short_name or brand.company}  |  {board}", 22, True, dark)  # the wordmark
    start = day - dt.timedelta(days=13)
    b.text(M, 62, f"Reporting period {fmt_date(start, 'short')} to {fmt_date(day, 'short')}", 14, False, MUTED)
    b.text(W - M, 62, f"Updated {fmt_date(day, 'short')}, {rng.randint(6, 9):02d}:{rng.choice([0, 15, 30, 45]):02d}",
           14, False, MUTED, ha="right")
    y = header_h
    for n in notes:
        b.card(M, y, W - 2 * M, 38, fill="#fff6de")
        b.text(M + 16, y + 9, f"Changed since the last report: {n}", 14)
        y += 46
    y += 20 if notes else 0

    # KPI tiles
    per_row = min(4, max(len(tile_specs), 1))
    tw = (W - 2 * M - (per_row - 1) * 24) / per_row
    for i, (cap, val, is_fact) in enumerate(tile_specs):
        r, c = divmod(i, per_row)
        x, ty = M + c * (tw + 24), y + r * (tile_h + GAP)
        b.card(x, ty, tw, tile_h)
        b.rect(x, ty, 6, tile_h, dark if is_fact else "#b8c2d1", z=1)
        for j, ln in enumerate(_wrap(cap, 30)[:2]):
            b.text(x + 24, ty + 16 + j * 24, ln, 15, False, MUTED)
        b.text(x + 24, ty + tile_h - 18, val, _fit(val, tw - 48, 32, 18), True, INK, va="bottom")
    y += tile_rows * (tile_h + GAP)

    # fact panels, full width
    for p in fact_panels:
        if p.kind not in ("cells", "catalog"):  # those draw a chart card and a table card
            b.card(M, y, W - 2 * M, p.height)
            b.text(M + 24, y + 18, p.title + _unit_note(p), 18, True)
        if p.kind == "cells":
            _cells(b, p, y, dark)
        elif p.kind == "catalog":
            _catalog(b, p, y, dark)
        elif p.kind == "bars":
            _hbars(b, p, y, dark)
        else:
            k = 0
            for n in p.data:
                for ln in _wrap(n, 150):
                    b.text(M + 24, y + 60 + 34 * k, ln, 15)
                    k += 1
        y += p.height + GAP

    # routine panels, side by side
    if r_panels:
        pw = (W - 2 * M - (len(r_panels) - 1) * 24) / len(r_panels)
        for i, p in enumerate(r_panels):
            x = M + i * (pw + 24)
            b.card(x, y, pw, routine_h)
            b.text(x + 20, y + 16, p.title, 16, True)
            _routine_axes(b, p, x, y, pw, routine_h, dark)
        y += routine_h + GAP

    source = rng.choice([f"{brand.short_name or brand.company} service reporting", "Service desk dashboard", "Weekly service pack",
                         "Operations analytics", f"{brand.short_name or brand.company} ops reporting",
                         "Contact centre MI"])
    b.text(M, H - 34, f"Internal  |  Source: {source}  |  Owner: {ctx.writer.person(rng, 'manager')}", 12, False, MUTED,
           va="center")
    b.text(W - M, H - 34, "Page 1 of 1", 12, False, MUTED, ha="right", va="center")
    return b.image()


def _fit(text: str, room_px: float, size: float, smallest: float) -> float:
    """The largest font size from `size` down to `smallest` points at which `text` (bold) fits
    in `room_px`."""
    from PIL import ImageFont  # noqa: PLC0415  (heavy; loaded on first use)

    while size > smallest:
        if ImageFont.truetype(font_file("sans", True), int(size * DPI / 72)).getlength(text) <= room_px:
            break
        size -= 2
    return size


def _unit_note(p: _Panel) -> str:
    if p.figures and p.figures[0].measure[0] == "money" and all(f.value.startswith("$") for f in p.figures):
        return " (USD)"
    return ""


def _wrap(s: str, width: int) -> list[str]:
    out, cur = [], ""
    for w in s.split():
        if cur and len(cur) + 1 + len(w) > width:
            out.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}".strip()
    if cur:
        out.append(cur)
    return out or [""]


def _style(ax) -> None:
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.tick_params(length=0)
    ax.set_facecolor(PANEL)


def _ticks(ax, axis: str, size: float = 13, color: str = MUTED) -> None:
    for lbl in (ax.get_xticklabels() if axis == "x" else ax.get_yticklabels()):
        lbl.set_fontproperties(_fp(size))
        lbl.set_color(color)


def _cells(b: _Board, p: _Panel, y: float, dark: str) -> None:
    """Grouped bars (a group per row, a bar per column, the figure on every bar) and, to their
    right, the table of the same figures."""
    rows = list(dict.fromkeys(f.row for f in p.figures))
    cols = list(dict.fromkeys(f.col for f in p.figures))
    at = {(f.row, f.col): f for f in p.figures}
    colors = _palette(dark, len(cols))
    chart_w = (W - 2 * M) * 0.56
    b.card(M, y, chart_w - 12, p.height)
    # one series: named in the title, no legend (a legend of one entry repeated the table's
    # header word for word, a line OCR read twice)
    single = len(cols) == 1
    b.text(M + 24, y + 18, p.title + (f": {cols[0]}" if single else "") + _unit_note(p),
           18, True)
    b.card(M + chart_w + 12, y, W - 2 * M - chart_w - 12, p.height)
    ax = b.axes(M + 40, y + 100, chart_w - 80, p.height - 150)
    _style(ax)
    n = len(cols)
    width = 0.8 / max(n, 1)
    top = max((f.number for f in p.figures), default=1) or 1
    bar_px = (chart_w - 60) / (len(rows) + 0.2) * width
    for j, c in enumerate(cols):
        xs = [i + (j - (n - 1) / 2) * width for i in range(len(rows))]
        hs = [at[(r, c)].number if (r, c) in at else 0 for r in rows]
        ax.bar(xs, hs, width * 0.9, color=colors[j], zorder=2)
        for x, r, h in zip(xs, rows, hs):
            f = at.get((r, c))
            size = _label_size(f.value, bar_px) if f else None
            if size:  # a figure too wide for its bar is left to the table beside the chart
                ax.text(x, h + top * 0.03, f.value, ha="center", va="bottom", fontproperties=_fp(size, True),
                        color=INK, zorder=3)
    ax.set_ylim(0, top * 1.25)
    ax.set_xlim(-0.6, len(rows) - 0.4)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(rows)
    _ticks(ax, "x", 13, INK)
    ax.set_yticks([])
    # legend above the bars: the column names
    lx = M + 24
    for j, c in enumerate([] if single else cols):
        b.rect(lx, y + 62, 14, 14, colors[j], z=1)
        b.text(lx + 22, y + 60, c, 13)
        lx += 44 + 8.5 * len(c)
    # the table, in a card of its own (read on its own: its rows never share a line with the bars)
    tx0 = M + chart_w + 30
    tw = (W - 2 * M) - chart_w - 54
    first_w = min(tw * 0.45, max(120, 10 * max(len(r) for r in rows) + 20))
    cw = (tw - first_w) / max(len(cols), 1)
    ty = y + 70
    # four columns in a narrow card: the figures and the header words are set small enough to
    # leave a gap between columns ("$15,000$150,000" ran together and OCR read one number)
    vsize = min((_fit(f.value, cw - 24, 15, 9) for f in p.figures), default=15)
    hsize = min((_fit(w, cw - 20, 13, 9) for c in cols for w in c.split()), default=13)
    per = max(6, int((cw - 20) / (0.62 * hsize * DPI / 72)))
    hdr = [_wrap(c, per) for c in cols]
    for j, lines in enumerate(hdr):
        for k, ln in enumerate(lines):
            b.text(tx0 + first_w + j * cw + cw - 12, ty + k * 20, ln, hsize, True, INK, ha="right")
    ty += 20 * max(len(h) for h in hdr) + 12
    b.hline(tx0, tx0 + tw, ty - 4, "#9aa4b5")
    for i, r in enumerate(rows):
        if i % 2 == 1:
            b.rect(tx0, ty - 2, tw, 44, "#f5f7fa")
        b.text(tx0 + 8, ty + 10, r, 15)
        for j, c in enumerate(cols):
            f = at.get((r, c))
            if f:
                b.text(tx0 + first_w + j * cw + cw - 12, ty + 10, f.value, vsize, True, INK, ha="right")
        ty += 44


def _catalog(b: _Board, p: _Panel, y: float, dark: str) -> None:
    """A catalog's products across and their attributes down the side (the figures of several
    kinds: a price, a data allowance, a speed), and beside the table a bar chart of the
    attribute most products share (a price where there is one), a figure on every bar."""
    rows = list(dict.fromkeys(f.row for f in p.figures))   # products
    cols = list(dict.fromkeys(f.col for f in p.figures))   # attributes
    at = {(f.row, f.col): f for f in p.figures}
    shared = sorted(cols, key=lambda c: (-sum((r, c) in at for r in rows),
                                         at[next(r for r in rows if (r, c) in at), c].measure[0] != "money"))
    plot = shared[0] if shared and sum((r, shared[0]) in at for r in rows) >= 2 else None
    full = W - 2 * M
    card_w = full * (0.62 if plot else 1.0) - (12 if plot else 0)
    table_w = card_w - 48
    b.card(M, y, card_w, p.height)
    b.text(M + 24, y + 18, p.title, 18, True)
    if plot:
        b.card(M + full * 0.62 + 12, y, full * 0.38 - 12, p.height)
    tx0 = M + 24
    label_w = min(table_w * 0.55, max(260, 9.6 * max(len(c) for c in cols) + 30))
    cw = (table_w - label_w) / max(len(rows), 1)
    ty = y + 66
    per = max(8, int(cw / 10))
    hdr = [_wrap(r, per) for r in rows]
    for start in range(0, len(cols), BLOCK):
        # the products' names over every block of lines: a figure is never far from its product
        for j, lines in enumerate(hdr):
            for k, ln in enumerate(lines):
                b.text(tx0 + label_w + j * cw + cw - 12, ty + k * 20, ln, 13, True, INK, ha="right")
        ty += 20 * max(len(h) for h in hdr) + 12
        b.hline(tx0, tx0 + table_w, ty - 4, "#9aa4b5")
        for i, c in enumerate(cols[start:start + BLOCK]):
            if i % 2 == 1:
                b.rect(tx0, ty - 2, table_w, 42, "#f5f7fa")
            b.text(tx0 + 8, ty + 9, c, 14)
            for j, r in enumerate(rows):
                f = at.get((r, c))
                if f:  # a blank cell: that product's figure is not on this dashboard
                    b.text(tx0 + label_w + j * cw + cw - 12, ty + 9, f.value, 14, True, INK, ha="right")
            ty += 42
        ty += 18
    if not plot:
        return
    figs = [at[(r, plot)] for r in rows if (r, plot) in at]
    x0 = M + full * 0.62 + 24
    for k, ln in enumerate(_wrap(plot + (" (USD)" if all(f.value.startswith("$") for f in figs) else ""), 44)[:2]):
        b.text(x0 + 12, y + 18 + 26 * k, ln, 16, True)
    ax = b.axes(x0 + 10, y + 130, full * 0.38 - 70, p.height - 190)
    _style(ax)
    top = max(f.number for f in figs) or 1
    bar_px = (full * 0.38 - 70) / (len(figs) + 0.2) * 0.6
    ax.bar(range(len(figs)), [f.number for f in figs], 0.6, color=dark, zorder=2)
    for i, f in enumerate(figs):
        size = _label_size(f.value, bar_px + 30)
        if size:
            ax.text(i, f.number + top * 0.03, f.value, ha="center", va="bottom", fontproperties=_fp(size, True),
                    color=INK)
    ax.set_ylim(0, top * 1.25)
    ax.set_xlim(-0.6, len(figs) - 0.4)
    ax.set_xticks(range(len(figs)))
    ax.set_xticklabels([f.row for f in figs])
    _ticks(ax, "x", 12, INK)
    ax.set_yticks([])


def _label_size(value: str, room_px: float) -> Optional[int]:
    """The largest font size (12 to 9 pt) at which `value` fits over a bar `room_px` wide."""
    for size in (12, 11, 10, 9):
        if len(value) * 0.64 * size * DPI / 72 <= room_px - 4:
            return size
    return None


def _hbars(b: _Board, p: _Panel, y: float, dark: str) -> None:
    """Horizontal bars: the label left of each bar, the figure at its end."""
    figs = p.figures
    label_w = min(640, max(260, 10.5 * max(len(f.row) for f in figs) + 60))
    ax = b.axes(M + 24 + label_w, y + 70, W - 2 * M - label_w - 200, p.height - 100)
    _style(ax)
    ys = list(range(len(figs)))[::-1]
    top = max(f.number for f in figs) or 1
    ax.barh(ys, [f.number for f in figs], 0.55, color=dark, zorder=2)
    for yy, f in zip(ys, figs):
        ax.text(f.number + top * 0.02, yy, f.value, va="center", ha="left", fontproperties=_fp(15, True), color=INK)
    ax.set_xlim(0, top * 1.2)
    ax.set_ylim(-0.6, len(figs) - 0.4)
    ax.set_yticks(ys)
    ax.set_yticklabels([f.row for f in figs])
    ax.tick_params(axis="y", pad=16)  # a label touching its bar reads badly
    _ticks(ax, "y", 15, INK)
    ax.set_xticks([])
    ax.spines["bottom"].set_visible(False)


def _routine_axes(b: _Board, p: _Panel, x: float, y: float, w: float, h: float, dark: str) -> None:
    if p.kind == "line":
        ax = b.axes(x + 60, y + 70, w - 90, h - 120)
        _style(ax)
        days, vals = zip(*p.data)
        xs = list(range(len(days)))
        ax.plot(xs, vals, color=dark, linewidth=2.2, zorder=2)
        ax.fill_between(xs, vals, color=dark, alpha=0.08, zorder=1)
        ax.set_xticks(xs[::3])
        ax.set_xticklabels([f"{d.strftime('%b')} {d.day}" for d in days[::3]])
        ax.set_ylim(0, max(vals) * 1.2)
        ax.grid(axis="y", color=GRID, zorder=0)
        _ticks(ax, "x", 12)
        _ticks(ax, "y", 12)
    elif p.kind == "status":
        ax = b.axes(x + 30, y + 70, w - 60, h - 120)
        _style(ax)
        names = [str(n).capitalize() for n, _ in p.data]
        vals = [v for _, v in p.data]
        ax.bar(range(len(vals)), vals, 0.6, color="#8fa3bf", zorder=2)
        for i, v in enumerate(vals):
            ax.text(i, v + max(vals) * 0.03, f"{v:,}", ha="center", va="bottom", fontproperties=_fp(12), color=MUTED)
        ax.set_xticks(range(len(vals)))
        ax.set_xticklabels(names)
        ax.set_yticks([])
        ax.set_ylim(0, max(vals) * 1.25)
        _ticks(ax, "x", 12)
    else:  # the busiest routes or items: horizontal counts, names left
        lw = min(w * 0.55, 9 * max(len(str(n)) for n, _ in p.data) + 20)
        ax = b.axes(x + 20 + lw, y + 60, w - lw - 70, h - 90)
        _style(ax)
        names = [str(n) for n, _ in p.data][::-1]
        vals = [v for _, v in p.data][::-1]
        ax.barh(range(len(vals)), vals, 0.6, color="#8fa3bf", zorder=2)
        for i, v in enumerate(vals):
            ax.text(v + max(vals) * 0.03, i, f"{v:,}", va="center", ha="left", fontproperties=_fp(12), color=MUTED)
        ax.set_yticks(range(len(vals)))
        ax.set_yticklabels(names)
        ax.tick_params(axis="y", pad=10)
        ax.set_xticks([])
        ax.set_xlim(0, max(vals) * 1.3)
        ax.spines["bottom"].set_visible(False)
        _ticks(ax, "y", 12)
