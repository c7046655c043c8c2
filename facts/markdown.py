"""Markdown structure for the decomposer: text decoding, blocks, inline cleaning.

- `decode_text`: bytes -> str, where invalid UTF-8 or a NUL names the file and line;
- `parse_blocks`: headings, paragraphs, list items (with indentation), tables, code blocks,
  HTML comments (structure, also inline) and markup-only lines; malformed structure (table
  rows with the wrong number of cells, an unclosed code fence or HTML comment) raises
  `FactforgeError` naming the file and line;
- `Text`: cleaned text with its bold spans and the source line of each character run, so a
  statement cut from a paragraph still knows its lines.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from .errors import FactforgeError
from .values import clean_inline

# --- text with bold spans -----------------------------------------------------------------------


@dataclass(frozen=True)
class Text:
    """Cleaned text, the spans of its bold terms, and the source line of each character run."""

    text: str
    bold: tuple = ()
    starts: tuple = (0,)   # offsets where each source line begins in `text`
    lines: tuple = (1,)    # the line number of each start

    def line_at(self, off: int) -> int:
        return self.lines[max(0, bisect.bisect_right(self.starts, off) - 1)]

    def cut(self, a: int, b: int) -> "Text":
        # trim whitespace inside [a, b)
        while a < b and self.text[a].isspace():
            a += 1
        while b > a and self.text[b - 1].isspace():
            b -= 1
        bold = tuple((x - a, y - a) for x, y in self.bold if x >= a and y <= b)
        i = max(0, bisect.bisect_right(self.starts, a) - 1)
        j = bisect.bisect_left(self.starts, b)
        starts = tuple([0] + [s - a for s in self.starts[i + 1:j]])
        return Text(self.text[a:b], bold, starts, self.lines[i:j] or (self.line_at(a),))

    @property
    def first_line(self) -> int:
        return self.lines[0]

    @property
    def last_line(self) -> int:
        return self.lines[-1]

    def plus(self, other: "Text", sep: str = " ") -> "Text":
        if not self.text:
            return other
        shift = len(self.text) + len(sep)
        return Text(self.text + sep + other.text, self.bold + tuple((x + shift, y + shift) for x, y in other.bold),
                    self.starts + tuple(x + shift for x in other.starts), self.lines + other.lines)


def clean_lines(raw: list[tuple[int, str]]) -> Text:
    parts, bold, starts, lines = [], [], [], []
    off = 0
    for lineno, line in raw:
        text, b = clean_inline(" ".join(line.split()))
        if parts:
            off += 1
        starts.append(off)
        lines.append(lineno)
        bold.extend((x + off, y + off) for x, y in b)
        parts.append(text)
        off += len(text)
    return Text(" ".join(parts), tuple(bold), tuple(starts), tuple(lines))


# --- pass 1: blocks -----------------------------------------------------------------------------
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_EMPTY_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]*$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_HR = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_ITEM = re.compile(r"^(\s*)([-*+•]|\d{1,3}[.)]|[a-h][.)](?=[ \t]+\S))[ \t]+(\S.*)$")
_EMPTY_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])[ \t]*$")
_QUOTE = re.compile(r"^\s*>\s?")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_SETEXT_H1 = re.compile(r"^ {0,3}=+\s*$")
_PIPE_SPLIT = re.compile(r"(?<!\\)\|")


@dataclass
class Block:
    kind: str                      # heading para item table code unparsed blank
    start: int
    end: int
    indent: int = 0
    raw: list = field(default_factory=list)   # [(lineno, text)]
    level: int = 0
    numbered: bool = False
    header: list = field(default_factory=list)
    rows: list = field(default_factory=list)  # [(lineno, cells)]
    reason: str = ""


def split_row(line: str) -> list[str]:
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    return [c.strip().replace("\\|", "|") for c in _PIPE_SPLIT.split(s)]


def _is_para_line(line: str) -> bool:
    return not (_HEADING.match(line) or _FENCE.match(line) or _HR.match(line) or _ITEM.match(line)
                or _EMPTY_ITEM.match(line) or line.strip().startswith("|") or _EMPTY_HEADING.match(line))


_COMMENT_SEAM = re.compile(r"([.!?;:,])\s*[.;,](?=\s|$)|\s+(?=[.,;:!?](?:\s|$))")


def strip_comments(lines: list[str], file: str) -> list[str]:
    """HTML comments are authors' notes, structure rather than policy: removed wherever they
    sit (whole lines, several lines, or inside a sentence: "The fee is $50. <!-- $77 -->."),
    leaving the line structure (and so every line number) intact. Code fences are kept as
    written. An unclosed comment is an error naming its first line."""
    out: list[str] = []
    fence: str = ""
    open_at = 0
    for no, line in enumerate(lines, 1):
        fm = _FENCE.match(line)
        if not open_at and fm and (not fence or fm.group(1)[0] == fence):
            fence = "" if fence else fm.group(1)[0]
            out.append(line)
            continue
        if fence or ("<!--" not in line and not open_at):
            out.append(line)
            continue
        kept, pos = [], 0
        while pos <= len(line):
            if open_at:
                end = line.find("-->", pos)
                if end < 0:
                    pos = len(line) + 1
                    break
                pos, open_at = end + 3, 0
                continue
            start = line.find("<!--", pos)
            if start < 0:
                kept.append(line[pos:])
                break
            kept.append(line[pos:start])
            pos, open_at = start + 4, no
        text = "".join(kept)
        out.append(_COMMENT_SEAM.sub(lambda m: m.group(1) or "", text) if text.strip() else "")
    if open_at:
        raise FactforgeError("unclosed HTML comment (no closing -->)", file, open_at)
    return out


def parse_blocks(lines: list[str], file: str) -> list[Block]:
    lines = strip_comments(lines, file)
    out: list[Block] = []
    n = len(lines)
    i = 0
    while i < n:
        line = lines[i]
        s = line.strip()
        no = i + 1
        if not s:
            out.append(Block("blank", no, no))
            i += 1
            continue
        fm = _FENCE.match(line)
        if fm:
            marker = fm.group(1)
            j = i + 1
            while j < n and not (lines[j].strip().startswith(marker[0] * len(marker))
                                 and not lines[j].strip().strip(marker[0])):
                j += 1
            if j >= n:
                raise FactforgeError("unclosed code fence (no closing " + marker + ")", file, no)
            out.append(Block("code", no, j + 1, raw=[(k + 1, lines[k]) for k in range(i + 1, j)]))
            i = j + 1
            continue
        hm = _HEADING.match(line)
        if hm:
            out.append(Block("heading", no, no, level=len(hm.group(1)), raw=[(no, hm.group(2))]))
            i += 1
            continue
        if _EMPTY_HEADING.match(line):
            out.append(Block("unparsed", no, no, raw=[(no, line)], reason="empty heading"))
            i += 1
            continue
        if _SETEXT_H1.match(line) and out and out[-1].kind == "para" and len(out[-1].raw) == 1:
            prev = out.pop()
            out.append(Block("heading", prev.start, no, level=1, raw=prev.raw))
            i += 1
            continue
        if "|" in s and i + 1 < n and _TABLE_SEP.match(lines[i + 1]) and "|" in s + lines[i + 1]:
            header = split_row(line)
            sep = split_row(lines[i + 1])
            if len(sep) != len(header):
                raise FactforgeError(f"table separator has {len(sep)} cells but the header has {len(header)}",
                                     file, no + 1)
            blk = Block("table", no, no + 1, header=header)
            j = i + 2
            while j < n and lines[j].strip() and "|" in lines[j]:
                cells = split_row(lines[j])
                if len(cells) != len(header):
                    raise FactforgeError(f"table row has {len(cells)} cells but the header has {len(header)}",
                                         file, j + 1)
                blk.rows.append((j + 1, cells))
                j += 1
            blk.end = j
            out.append(blk)
            i = j
            continue
        if s.startswith("|") and s.count("|") >= 2:
            raise FactforgeError("table row without a header separator line (| --- | --- |)", file, no)
        if _HR.match(line):
            out.append(Block("unparsed", no, no, raw=[(no, line)], reason="markup only (horizontal rule)"))
            i += 1
            continue
        if _EMPTY_ITEM.match(line):
            out.append(Block("unparsed", no, no, raw=[(no, line)], reason="empty list item"))
            i += 1
            continue
        im = _ITEM.match(line)
        if im:
            blk = Block("item", no, no, indent=len(im.group(1).expandtabs(4)), raw=[(no, im.group(3))],
                         numbered=im.group(2)[0].isalnum())
            j = i + 1
            while j < n and lines[j].strip() and _is_para_line(lines[j]) and not _QUOTE.match(lines[j]) \
                    and not ("|" in lines[j] and j + 1 < n and _TABLE_SEP.match(lines[j + 1])):
                blk.raw.append((j + 1, lines[j]))
                j += 1
            blk.end = j
            out.append(blk)
            i = j
            continue
        if not _is_para_line(line):  # a lone leading pipe ("|- text"): neither a table row nor text
            out.append(Block("unparsed", no, no, raw=[(no, line)], reason="a line starting with a lone '|' "
                             "(a table row needs a header and a separator line)"))
            i += 1
            continue
        # paragraph (block quotes are read as paragraphs)
        blk = Block("para", no, no, indent=len(line) - len(line.lstrip(" \t")))
        j = i
        while j < n and lines[j].strip() and _is_para_line(lines[j]) \
                and not ("|" in lines[j] and j + 1 < n and _TABLE_SEP.match(lines[j + 1])) \
                and not (j > i and (_SETEXT_H1.match(lines[j]) or lines[j - 1].rstrip().endswith(":"))):
            blk.raw.append((j + 1, _QUOTE.sub("", lines[j], count=1)))
            j += 1
        blk.end = j
        out.append(blk)
        i = j
    return out


def decode_text(data: bytes | str, file: str) -> str:
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            line = data[:e.start].count(b"\n") + 1
            raise FactforgeError(f"not valid UTF-8 (byte 0x{data[e.start]:02x})", file, line) from None
    else:
        text = data
    if text.startswith("\ufeff"):
        text = text[1:]
    bad = re.search(r"[\ud800-\udfff\x00]", text)
    if bad:
        line = text[:bad.start()].count("\n") + 1
        raise FactforgeError("not valid UTF-8 text (undecodable or NUL character)", file, line)
    return text.replace("\r\n", "\n").replace("\r", "\n")
