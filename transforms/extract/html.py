"""Visible text of an HTML page (html.parser from the standard library).

Skips <head>, <script>, <style>, <template>, <noscript>, and any element marked hidden
(`hidden` attribute, `aria-hidden="true"`, inline `display:none` / `visibility:hidden`).
Block elements start new lines; table cells are separated by " | ".
"""
from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
_SKIP = {"head", "script", "style", "template", "noscript", "svg"}
_BLOCK = {"address", "article", "aside", "blockquote", "dd", "details", "div", "dl", "dt", "figcaption", "figure",
          "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "li", "main", "nav", "ol", "p", "pre",
          "section", "summary", "table", "tbody", "thead", "tr", "ul"}
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)


def _hidden(tag: str, attrs: list[tuple[str, str | None]]) -> bool:
    if tag in _SKIP:
        return True
    d = {k.lower(): (v or "") for k, v in attrs}
    return ("hidden" in d or d.get("aria-hidden", "").lower() == "true"
            or bool(_HIDDEN_STYLE.search(d.get("style", ""))))


class _Visible(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.stack: list[tuple[str, bool]] = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in _VOID:
            if tag in ("br", "hr") and not self.skip:
                self.parts.append("\n")
            return
        hidden = _hidden(tag, attrs)
        self.stack.append((tag, hidden))
        if hidden:
            self.skip += 1
        elif not self.skip:
            if tag in _BLOCK:
                self.parts.append("\n")
            elif tag in ("td", "th"):
                self.parts.append(" | ")

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if not any(t == tag for t, _ in self.stack):
            return
        while self.stack:
            t, hidden = self.stack.pop()
            if hidden:
                self.skip -= 1
            if t == tag:
                break
        if not self.skip and tag in _BLOCK:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self.skip:
            pre = any(t == "pre" for t, _ in self.stack)
            self.parts.append(data if pre else re.sub(r"\s+", " ", data))

    def text(self) -> str:
        raw = "".join(self.parts).replace("\u00a0", " ")
        lines = []
        for line in raw.split("\n"):
            line = re.sub(r"[ \t]+", " ", line).strip()
            line = re.sub(r"^\|\s*", "", line)
            if line:
                lines.append(line)
        return "\n".join(lines)


def html_visible_text(source: str) -> str:
    p = _Visible()
    p.feed(source)
    p.close()
    return p.text()


def html_text(path: str | Path) -> str:
    return html_visible_text(Path(path).read_text(encoding="utf-8"))
