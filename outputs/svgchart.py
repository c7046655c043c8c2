"""Small charts drawn as inline SVG text, for the evaluator's and the engagement's
`report.html`: vertical bars, horizontal (overlaid) bars, points against reference lines on a
linear or symmetric-log axis, and a timeline of marks per row.

Pure Python and deterministic (the same data give the same bytes): the report paths import no
plotting library. Every chart is a `<svg>` with a `viewBox`, scaled by the page's CSS; text is
escaped, labels too long for their margin are cut with an ellipsis.
"""
from __future__ import annotations

import html
import math
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

FONT = "font-family:sans-serif"
INK, GRID, MUTED = "#333", "#e6e6e6", "#999"
CHAR = 0.56  # a character's width, as a share of the font size (sans-serif, mixed case)


def _n(x: float) -> str:
    """A coordinate with at most one decimal, no trailing zeros."""
    s = f"{x:.1f}"
    return s[:-2] if s.endswith(".0") else s


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _fit(text: str, width: float, size: float) -> str:
    """`text` cut (with an ellipsis) to about `width` pixels at font `size`."""
    most = max(1, int(width / (CHAR * size)))
    return text if len(text) <= most else text[:max(1, most - 1)] + "…"


def nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """About `n` round tick values covering [lo, hi] (steps of 1, 2 or 5 times a power of ten)."""
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / max(1, n)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw * 0.75)
    first = math.ceil(lo / step - 1e-9) * step
    out, k = [], 0
    while first + k * step <= hi + step * 1e-9:
        out.append(round(first + k * step, 12))
        k += 1
    return out


def tick_label(v: float) -> str:
    return f"{v:.4g}"


@dataclass(frozen=True)
class Scale:
    """A value axis: linear, or symmetric-log (linear up to `linthresh`, logarithmic beyond)."""
    lo: float
    hi: float
    linthresh: Optional[float] = None

    def _t(self, v: float) -> float:
        if self.linthresh is None:
            return v
        a = abs(v) / self.linthresh
        return math.copysign(a if a <= 1 else 1 + math.log10(a), v)

    def frac(self, v: float) -> float:
        lo, hi = self._t(self.lo), self._t(self.hi)
        return 0.0 if hi == lo else min(1.0, max(0.0, (self._t(v) - lo) / (hi - lo)))

    def ticks(self) -> list[float]:
        if self.linthresh is None:
            return [t for t in nice_ticks(self.lo, self.hi) if self.lo - 1e-12 <= t <= self.hi + 1e-12]
        out, t = [0.0], self.linthresh
        while t <= self.hi * 1.0001:
            out.append(t)
            t *= 10
        return out if len(out) <= 8 else out[::math.ceil(len(out) / 8)]


class _Canvas:
    """A plot area inside margins; items are SVG element strings."""

    def __init__(self, width: float, height: float, left: float, right: float, top: float, bottom: float):
        self.w, self.h = width, height
        self.x0, self.x1, self.y0, self.y1 = left, width - right, top, height - bottom
        self.items: list[str] = []

    def add(self, item: str) -> None:
        self.items.append(item)

    def text(self, x: float, y: float, s: str, size: float = 10, anchor: str = "start", rotate: bool = False,
             colour: str = INK) -> None:
        turn = f' transform="rotate(-90 {_n(x)} {_n(y)})"' if rotate else ""
        self.add(f'<text x="{_n(x)}" y="{_n(y)}" font-size="{_n(size)}" text-anchor="{anchor}" fill="{colour}"'
                 f'{turn}>{_e(s)}</text>')

    def line(self, x1: float, y1: float, x2: float, y2: float, colour: str = INK, width: float = 1,
             dash: bool = False) -> None:
        d = ' stroke-dasharray="4 3"' if dash else ""
        self.add(f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" stroke="{colour}" '
                 f'stroke-width="{_n(width)}"{d}/>')

    def rect(self, x: float, y: float, w: float, h: float, colour: str, title: str = "") -> None:
        box = f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(max(w, 0))}" height="{_n(max(h, 0))}" fill="{colour}"'
        self.add(f"{box}><title>{_e(title)}</title></rect>" if title else f"{box}/>")

    def mark(self, x: float, y: float, shape: str, colour: str, size: float = 4) -> None:
        if shape == "o":
            self.add(f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(size)}" fill="{colour}"/>')
        elif shape == "x":
            for dx in (size, -size):
                self.line(x - dx, y - size, x + dx, y + size, colour, 1.6)
        else:  # "|"
            self.line(x, y - 2 * size, x, y + 2 * size, colour, 1.4)

    def value_axis_y(self, scale: Scale, label: str) -> Callable[[float], float]:
        """Horizontal grid lines and tick labels of a vertical value axis; the value -> y map."""
        def y(v: float) -> float:
            return self.y1 - scale.frac(v) * (self.y1 - self.y0)
        for t in scale.ticks():
            self.line(self.x0, y(t), self.x1, y(t), GRID)
            self.text(self.x0 - 4, y(t) + 3, tick_label(t), 9, "end")
        self.text(12, (self.y0 + self.y1) / 2, label, 10, "middle", rotate=True)
        return y

    def value_axis_x(self, scale: Scale, label: str) -> Callable[[float], float]:
        def x(v: float) -> float:
            return self.x0 + scale.frac(v) * (self.x1 - self.x0)
        for t in scale.ticks():
            self.line(x(t), self.y0, x(t), self.y1, GRID)
            self.text(x(t), self.y1 + 13, tick_label(t), 9, "middle")
        self.text((self.x0 + self.x1) / 2, self.h - 6, label, 10, "middle")
        return x

    def frame(self) -> None:
        self.line(self.x0, self.y1, self.x1, self.y1)
        self.line(self.x0, self.y0, self.x0, self.y1)

    def legend(self, entries: Sequence[tuple[str, str]]) -> None:
        """Colour swatches and labels in a row along the top right of the plot area."""
        if not entries:
            return
        size = 9
        widths = [14 + CHAR * size * len(label) + 10 for _, label in entries]
        x = max(self.x0 + 4, self.x1 - sum(widths) - 4)
        y = self.y0 - 8
        for (colour, label), w in zip(entries, widths):
            self.rect(x, y - 8, 10, 10, colour)
            self.text(x + 14, y + 1, label, size)
            x += w

    def svg(self) -> str:
        return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_n(self.w)} {_n(self.h)}" '
                f'width="{_n(self.w)}" height="{_n(self.h)}" role="img" style="{FONT}">'
                + "".join(self.items) + "</svg>")


def bar_chart(values: Sequence[float], colours: Sequence[str], labels: Sequence[str], *, y_max: float,
              y_label: str, x_label: str, legend: Sequence[tuple[str, str]] = ()) -> str:
    """Vertical bars, one per value, each labelled under the axis (turned upright)."""
    label_h = 6 + CHAR * 7 * max([len(s) for s in labels] or [0])
    width = max(420.0, min(1300.0, 18.0 * len(values) + 90))
    c = _Canvas(width, 190 + label_h, 52, 12, 28, label_h + 26)
    y = c.value_axis_y(Scale(0.0, y_max), y_label)
    slot = (c.x1 - c.x0) / max(1, len(values))
    for i, (v, col, lab) in enumerate(zip(values, colours, labels)):
        x = c.x0 + i * slot
        c.rect(x + slot * 0.1, y(v), slot * 0.8, c.y1 - y(v), col, f"{lab}: {v:.4g}")
        c.text(x + slot / 2 + 3, c.y1 + 5, lab, 7, "end", rotate=True)
    c.frame()
    c.text((c.x0 + c.x1) / 2, c.h - 6, x_label, 10, "middle")
    c.legend(legend)
    return c.svg()


def hbar_chart(labels: Sequence[str], series: Sequence[tuple[str, Sequence[float]]], *, x_max: float,
               x_label: str, legend: Sequence[tuple[str, str]] = ()) -> str:
    """Horizontal bars, one row per label, top to bottom; each series `(colour, values)` is drawn
    over the one before it (a total under its part)."""
    size = 8
    left = min(300.0, 10 + CHAR * size * max([len(s) for s in labels] or [0]))
    row = 16.0
    c = _Canvas(left + 460, 28 + row * max(1, len(labels)) + 34, left, 16, 28, 34)
    x = c.value_axis_x(Scale(0.0, x_max), x_label)
    for i, lab in enumerate(labels):
        top = c.y0 + i * row
        for colour, vals in series:
            c.rect(c.x0, top + 2, x(vals[i]) - c.x0, row - 4, colour, f"{lab}: {vals[i]:.4g}")
        c.text(c.x0 - 4, top + row / 2 + 3, _fit(lab, left - 8, size), size, "end")
    c.frame()
    c.legend(legend)
    return c.svg()


def points_chart(values: Sequence[float], lines: Sequence[tuple[float, str, bool, str]], *, y_label: str,
                 x_label: str, point_colour: str, point_label: str, linthresh: Optional[float] = None) -> str:
    """Points (index, value) and horizontal reference lines `(value, colour, dashed, label)`; the
    value axis symmetric-log when `linthresh` is given."""
    top = max([*values, *(v for v, *_ in lines), 1e-6]) * 2
    c = _Canvas(560, 250, 60, 14, 18 + 13 * (len(lines) + 1), 30)
    y = c.value_axis_y(Scale(0.0, top, linthresh), y_label)
    n = max(1, len(values))
    step = (c.x1 - c.x0) / n
    for t in nice_ticks(0, max(0, n - 1), 6):
        if t == int(t) and t < n:
            c.text(c.x0 + (t + 0.5) * step, c.y1 + 13, str(int(t)), 9, "middle")
    for v, colour, dashed, _label in lines:
        c.line(c.x0, y(v), c.x1, y(v), colour, 1.2, dashed)
    for i, v in enumerate(values):
        c.mark(c.x0 + (i + 0.5) * step, y(v), "o", point_colour, 2.5)
    c.frame()
    c.text((c.x0 + c.x1) / 2, c.h - 4, x_label, 10, "middle")
    for k, (colour, label) in enumerate([(point_colour, point_label)] + [(col, lab) for _v, col, _d, lab in lines]):
        c.rect(c.x0 + 4, 6 + 13 * k, 10, 10, colour)
        c.text(c.x0 + 18, 15 + 13 * k, label, 9)
    return c.svg()


def timeline_chart(rows: Sequence[str], marks: Sequence[tuple[int, float, str, str]], *, end: float,
                   x_label: str) -> str:
    """One row per name, top to bottom; `marks` are `(row, seconds, shape, colour)` with shape "o",
    "x" or "|"; a dashed line at `end`."""
    size = 9
    left = min(260.0, 10 + CHAR * size * max([len(s) for s in rows] or [0]))
    row = 24.0
    c = _Canvas(left + 520, 14 + row * max(1, len(rows)) + 34, left, 16, 10, 34)
    span = max(end, 1e-3) * 1.05
    x = c.value_axis_x(Scale(0.0, span), x_label)
    for i, name in enumerate(rows):
        c.text(c.x0 - 4, c.y0 + i * row + row / 2 + 3, _fit(name, left - 8, size), size, "end")
    for r, t, shape, colour in marks:
        c.mark(x(t), c.y0 + r * row + row / 2, shape, colour)
    c.line(x(end), c.y0, x(end), c.y1, MUTED, 1, dash=True)
    c.frame()
    return c.svg()
