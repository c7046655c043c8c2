"""Text-based modalities: plain text, e-mail (RFC 5322), JSON exports, WebVTT captions, CSV and
XLSX workbooks. Each function reads the delivered file with the format's own parser (email,
json, csv, openpyxl) and returns plain text, one record/line per line."""
from __future__ import annotations

import csv
import datetime as dt
import html
import json
import re
from email import policy
from email.parser import BytesParser
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Iterable, Optional
from zoneinfo import ZoneInfo

from facts.errors import FactforgeError


def extract_text_file(path: str | Path) -> str:
    return Path(path).read_text(encoding="utf-8")


# --- e-mail --------------------------------------------------------------------------------
class _HTMLText(HTMLParser):
    _BLOCK = {"p", "div", "br", "li", "tr", "blockquote", "h1", "h2", "h3", "h4", "table", "hr", "pre"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in ("style", "script", "head"):
            self._skip += 1
        elif tag in self._BLOCK:
            self.out.append("\n")
        elif tag in ("td", "th"):
            self.out.append(" | ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script", "head"):
            self._skip = max(0, self._skip - 1)
        elif tag in self._BLOCK:
            self.out.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.out.append(data)

    def text(self) -> str:
        lines = [" ".join(line.split()) for line in "".join(self.out).splitlines()]
        return "\n".join(line for line in lines if line)


def html_to_text(markup: str) -> str:
    p = _HTMLText()
    p.feed(markup)
    p.close()
    return html.unescape(p.text())


_HEADERS = ("From", "To", "Cc", "Date", "Subject")


def extract_eml(path: str | Path) -> str:
    """Headers (From, To, Cc, Date, Subject) and every displayable text part. Of a
    multipart/alternative the text/plain version is read (what a mail client shows in plain
    view); HTML-only parts are converted to text; text attachments are included."""

    with open(path, "rb") as f:
        msg = BytesParser(policy=policy.default).parse(f)
    lines = [f"{h}: {msg[h]}" for h in _HEADERS if msg[h]]
    lines.append("")
    for part in _displayed_parts(msg):
        body = part.get_content().replace("\r\n", "\n")
        if part.get_content_type() == "text/html":
            body = html_to_text(body)
        name = part.get_filename()
        if name:
            lines.append(f"[attachment: {name}]")
        lines.append(body.strip("\n"))
        lines.append("")
    return "\n".join(lines).strip() + "\n"


def _displayed_parts(part: Any) -> list[Any]:
    ctype = part.get_content_type()
    if part.is_multipart():
        subs = list(part.iter_parts())
        if ctype == "multipart/alternative":
            plain = [p for p in subs if p.get_content_type() == "text/plain"]
            pick = plain[:1] or subs[-1:]
            return [q for p in pick for q in _displayed_parts(p)]
        return [q for p in subs for q in _displayed_parts(p)]
    if part.get_content_maintype() == "text":
        return [part]
    return []


# --- JSON ------------------------------------------------------------------------------------
def json_strings(obj: Any, keys: Optional[Iterable[str]] = None) -> list[str]:
    """Every string value of a JSON document in document order; with `keys`, only the values
    of those keys."""
    wanted = set(keys) if keys is not None else None
    out: list[str] = []

    def walk(o: Any, key: Optional[str]) -> None:
        if isinstance(o, dict):
            for k, v in o.items():
                walk(v, k)
        elif isinstance(o, list):
            for v in o:
                walk(v, key)
        elif isinstance(o, str) and o.strip():
            if wanted is None or key in wanted:
                out.append(" ".join(o.split()) if "\n" not in o else o.strip())

    walk(obj, None)
    return out


def extract_json_strings(path: str | Path, keys: Optional[Iterable[str]] = None) -> str:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return "\n".join(json_strings(data, keys)) + "\n"


def _ts_key(ts: Any) -> tuple[int, int]:
    sec, _, frac = str(ts).partition(".")
    return int(sec or 0), int(frac or 0)


def extract_chat_export(path: str | Path) -> str:
    """A Slack-style channel export: channel header, then every message (thread replies
    included) in time order as 'YYYY-MM-DD HH:MM Name: text', one per line, in the export's
    timezone (UTC when it names none)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    tz: dt.tzinfo = dt.timezone.utc
    tzname = data.get("export", {}).get("timezone")
    if tzname:
        try:
            tz = ZoneInfo(tzname)
        except Exception:  # unknown zone: stay in UTC
            tz = dt.timezone.utc
    chan = data.get("channel", {})
    users = {u.get("id"): u for u in data.get("users", []) if isinstance(u, dict)}
    head = f"#{chan.get('name', '')}"
    purpose = (chan.get("purpose") or {}).get("value")
    lines = [f"{head}: {purpose}" if purpose else head]
    msgs = [m for m in data.get("messages", []) if isinstance(m, dict) and m.get("text")]
    for m in sorted(msgs, key=lambda m: _ts_key(m.get("ts", 0))):
        when = dt.datetime.fromtimestamp(_ts_key(m["ts"])[0], tz)
        prof = m.get("user_profile") or users.get(m.get("user"), {}).get("profile", {})
        who = prof.get("real_name") or m.get("user", "")
        lines.append(f"{when:%Y-%m-%d %H:%M} {who}: {' '.join(m['text'].split())}")
    return "\n".join(lines) + "\n"


# --- WebVTT ----------------------------------------------------------------------------------
_TIMING = re.compile(r"^\s*(\d{2}:)?\d{2}:\d{2}\.\d{3}\s+-->\s+(\d{2}:)?\d{2}:\d{2}\.\d{3}")
_VOICE = re.compile(r"<v(?:\.[\w.-]+)?\s+([^>]+)>")
_TAG = re.compile(r"</?[^>]+>")


def extract_vtt(path: str | Path) -> str:
    """Cue texts without timings, 'Speaker: text' when the cue has a <v> voice tag. Header,
    NOTE, STYLE and REGION blocks are skipped."""
    text = Path(path).read_text(encoding="utf-8").replace("\r\n", "\n")
    if not text.lstrip("\ufeff").startswith("WEBVTT"):
        raise FactforgeError("not a WebVTT file (missing WEBVTT header)", path, 1)
    out = []
    for block in re.split(r"\n{2,}", text):
        lines = block.strip("\n").split("\n")
        idx = next((i for i, line in enumerate(lines) if _TIMING.match(line)), None)
        if idx is None:
            continue
        payload = " ".join(line.strip() for line in lines[idx + 1:] if line.strip())
        voice = _VOICE.search(payload)
        body = html.unescape(_TAG.sub("", payload)).strip()
        out.append(f"{voice.group(1).strip()}: {body}" if voice else body)
    return "\n".join(out) + "\n"


# --- CSV -------------------------------------------------------------------------------------
def extract_csv(path: str | Path) -> str:
    """Every row, cells joined with ' | ' (header row first)."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        rows = list(csv.reader(f))
    return "\n".join(" | ".join(c.strip() for c in row) for row in rows if any(c.strip() for c in row)) + "\n"


# --- XLSX ------------------------------------------------------------------------------------
_CURRENCY = re.compile(r'\[\$([^\]-]+)(?:-[^\]]*)?\]|"([^"]+)"|([$€£¥])')


def format_number(value: float | int, fmt: str) -> str:
    """A cell number as the spreadsheet shows it for common formats: percent, currency with
    grouping, fixed decimals, integers; 'General' prints the number plainly."""
    fmt = (fmt or "General").split(";")[0]
    if fmt == "General" or fmt == "@":
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        return repr(value) if isinstance(value, float) else str(value)
    m = re.search(r"[0#]\.([0#]+)", fmt)
    frac = m.group(1) if m else ""
    lo, hi = frac.count("0"), len(frac)  # '0' digits always shown, '#' digits only when not zero
    grouping = "," in fmt.split(".")[0]

    def digits(x: float) -> str:
        t = f"{x:,.{hi}f}" if grouping else f"{x:.{hi}f}"
        while hi > lo and "." in t and t.endswith("0") and len(t.split(".")[1]) > lo:
            t = t[:-1]
        return t.rstrip(".")

    if "%" in fmt:
        return f"{'-' if value < 0 else ''}{digits(abs(value) * 100)}%"
    num = digits(abs(value))
    sign = "-" if value < 0 else ""
    cur = _CURRENCY.search(fmt)
    sym = ""
    if cur:
        sym = next(g for g in cur.groups() if g)
    if sym and cur.start() > fmt.find("0"):
        return f"{sign}{num} {sym.strip()}"
    return f"{sign}{sym}{num}"


def cell_text(cell: Any) -> str:
    v = cell.value
    if v is None:
        return ""
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, dt.datetime):
        return v.date().isoformat() if v.time() == dt.time(0) else v.isoformat(sep=" ", timespec="minutes")
    if isinstance(v, dt.date):
        return v.isoformat()
    if isinstance(v, (int, float)):
        return format_number(v, cell.number_format)
    return " ".join(str(v).split())


def extract_xlsx(path: str | Path) -> str:
    """Every sheet in workbook order ('== Sheet: name =='), every non-empty row as
    'A | B | C' with numbers shown per their number format, then the sheet's cell comments."""
    import openpyxl  # noqa: PLC0415  (heavy; loaded on first use)

    wb = openpyxl.load_workbook(path, data_only=True)
    out = []
    try:
        for ws in wb.worksheets:
            out.append(f"== Sheet: {ws.title} ==")
            notes = []
            for row in ws.iter_rows():
                cells = [cell_text(c) for c in row]
                while cells and not cells[-1]:
                    cells.pop()
                if any(cells):
                    out.append(" | ".join(cells))
                for c in row:
                    if c.comment is not None and c.comment.text:
                        who = f" ({c.comment.author})" if c.comment.author else ""
                        notes.append(f"Comment {c.coordinate}{who}: {' '.join(c.comment.text.split())}")
            out.extend(notes)
            out.append("")
    finally:
        wb.close()
    return "\n".join(out).strip() + "\n"
