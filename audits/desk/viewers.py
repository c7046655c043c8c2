"""One viewer per kind of file, chosen by what the file is, not by a table of kind names.

`view_file` reads a delivered file and returns a `View`: the name of a template partial
(`templates/viewers/<name>.html`) and the data it shows. The choice goes by extension and, for
JSON and plain text, by shape (a Slack-style export is shown as a team chat, any other JSON as
tables; a text file of `[time] Name: message` lines as a chat), so a new kind whose file looks
like an existing one gets a proper viewer without a code change, and anything else still gets
a plain or generic view.

- chat transcripts (.txt): header block, one bubble per message, system lines apart;
- email (.eml): the thread rebuilt from the quoted history of the newest message, oldest
  first, every earlier message folded;
- team chat (.json): the channel by thread, replies under their parent, reactions;
- meetings (.vtt/.srt): cues with time and speaker;
- PDF: every page rendered to PNG by pdftoppm (cached by the file's sha256), text layer folded;
- images: zoomable, with what OCR read folded;
- audio and video: HTML5 players with the recogniser's transcript beside them;
- HTML pages: the page itself in a sandboxed frame (no scripts);
- .docx: headings, paragraphs, lists and tables in document order;
- .xlsx: one table per sheet with merged cells, bold and fills;
- CSV: a table; other JSON: tables (see `jsonhtml`) or pretty-printed.
"""
from __future__ import annotations

import csv
import email
import email.policy
import email.utils
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import date, datetime, time, timezone
from pathlib import Path
from typing import Any, Callable, Optional
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from facts.errors import FactforgeError

from . import jsonhtml
from .extracted import Extracted

MAX_TABLE_ROWS = 2000
MAX_TEXT_BYTES = 2_000_000
PDF_DPI = 110


@dataclass(frozen=True)
class FileRef:
    """A file to show: where it is and the sha256 its manifest (or queue item) records.
    The page template knows the URL its bytes are served from."""

    path: Path
    sha256: str


@dataclass
class View:
    template: str                      # templates/viewers/<template>.html
    data: dict[str, Any] = field(default_factory=dict)
    extracted: Optional[Extracted] = None
    note: str = ""                     # shown above the viewer (e.g. why a fallback was used)


# ---------------------------------------------------------------- text helpers

def _read_text(path: Path) -> str:
    data = path.read_bytes()[:MAX_TEXT_BYTES]
    return data.decode("utf-8", errors="replace")


def text_view(ref: FileRef, note: str = "") -> View:
    return View("text", {"text": _read_text(ref.path)}, note=note)


# ---------------------------------------------------------------- chat transcripts

_CHAT_LINE = re.compile(r"^\[(?P<time>[0-9:apmAPM .-]{4,22})\]\s+(?P<who>[^:\[\]]{1,80}?):\s?(?P<text>.*)$")
_RULE = re.compile(r"^\s*[-=_]{8,}\s*$")
_HEADER = re.compile(r"^(?P<key>[A-Za-z][A-Za-z /#-]{0,30}):\s+(?P<value>.+)$")


def parse_chat(text: str) -> Optional[dict[str, Any]]:
    """A chat transcript: {title, header [(key, value)], messages [{time, who, text, role}],
    footer}, or None when fewer than two lines look like chat messages."""
    lines = text.splitlines()
    first = next((i for i, ln in enumerate(lines) if _CHAT_LINE.match(ln)), None)
    if first is None or sum(1 for ln in lines if _CHAT_LINE.match(ln)) < 2:
        return None
    head_lines = lines[:first]
    title, header = [], []
    for ln in head_lines:
        m = _HEADER.match(ln.strip())
        if m:
            header.append((m["key"].strip(), m["value"].strip()))
        elif ln.strip() and not _RULE.match(ln):
            title.append(ln.strip())
    staff = {v.split("(")[0].strip() for k, v in header if k.lower() in ("agent", "staff", "advisor", "assigned to")}
    messages: list[dict[str, Any]] = []
    footer: list[str] = []
    for ln in lines[first:]:
        m = _CHAT_LINE.match(ln)
        if m:
            who = m["who"].strip()
            role = "system" if who.lower() in ("system", "bot", "auto") else ("staff" if who in staff else "customer")
            messages.append({"time": m["time"], "who": who, "text": m["text"], "role": role})
        elif _RULE.match(ln):
            footer.append("")
        elif footer:
            footer.append(ln)
        elif ln.strip() and messages:
            messages[-1]["text"] += "\n" + ln
    if not staff:  # no header naming the agent: the first non-system speaker is staff
        first_speaker = next((m["who"] for m in messages if m["role"] != "system"), None)
        for m in messages:
            if m["role"] != "system":
                m["role"] = "staff" if m["who"] == first_speaker else "customer"
    return {"title": title, "header": header, "messages": messages,
            "footer": [ln for ln in footer if ln.strip()]}


def chat_view(ref: FileRef) -> View:
    text = _read_text(ref.path)
    parsed = parse_chat(text)
    if parsed is None:
        return View("text", {"text": text})
    return View("chat", parsed)


# ---------------------------------------------------------------- email threads

# "On Thu, 20 Nov 2025 at 17:51, Jonah Pike <jonah@example.net> wrote:": the date ends at its
# clock time when it has one (dates hold commas too), else at the first comma.
_ATTRIBUTION = re.compile(r"^On (?P<date>.*?\d{1,2}:\d{2}(?::\d{2})?(?:\s?[APap][Mm])?(?:\s*[+-]\d{4})?),\s*"
                          r"(?P<who>.+?)\s+wrote:\s*$")
_ATTRIBUTION_LOOSE = re.compile(r"^On (?P<date>.+?),\s*(?P<who>.+?)\s+wrote:\s*$")
_QUOTE = re.compile(r"^((?:>\s?)+)")


def _quote_depth(line: str) -> tuple[int, str]:
    m = _QUOTE.match(line)
    if not m:
        return 0, line
    return m.group(1).count(">"), line[m.end():]


def split_quoted_thread(body: str, sender: str, sent: str) -> list[dict[str, str]]:
    """The messages of a reply that quotes its history (`>` per level, an `On DATE, NAME
    wrote:` line before each quoted level), newest first: [{who, date, body}]."""
    levels: dict[int, list[str]] = {}
    meta: dict[int, dict[str, str]] = {0: {"who": sender, "date": sent}}
    for line in body.splitlines():
        depth, rest = _quote_depth(line)
        m = _ATTRIBUTION.match(rest.strip()) or _ATTRIBUTION_LOOSE.match(rest.strip())
        if m and depth + 1 not in meta:
            meta[depth + 1] = {"who": m["who"], "date": m["date"]}
            continue
        levels.setdefault(depth, []).append(rest)
    out = []
    for depth in sorted(set(levels) | set(meta)):
        text = "\n".join(levels.get(depth, [])).strip("\n")
        info = meta.get(depth, {"who": "(unknown sender)", "date": ""})
        name, addr = email.utils.parseaddr(info["who"])
        out.append({"who": name or addr or info["who"], "address": addr if name else "", "date": info["date"],
                    "body": text})
    return out


def _split_signature(body: str) -> tuple[str, str]:
    lines = body.splitlines()
    for i, ln in enumerate(lines):
        if ln.rstrip() == "--":
            return "\n".join(lines[:i]).rstrip(), "\n".join(lines[i + 1:]).strip()
    return body, ""


def parse_eml(data: bytes) -> dict[str, Any]:
    msg = email.message_from_bytes(data, policy=email.policy.default)
    plain = msg.get_body(preferencelist=("plain",))
    if plain is not None:
        body = plain.get_content()
    else:
        html = msg.get_body(preferencelist=("html",))
        body = re.sub(r"<[^>]+>", " ", html.get_content()) if html is not None else ""
    attachments = [{"name": part.get_filename() or "(unnamed)", "type": part.get_content_type()}
                   for part in msg.iter_attachments()]
    headers = [(k, str(msg[k])) for k in ("From", "To", "Cc", "Date", "Subject") if msg[k]]
    thread = split_quoted_thread(body, str(msg["From"] or ""), str(msg["Date"] or ""))
    messages = []
    for m in reversed(thread):  # oldest first, the way a thread is read
        text, sig = _split_signature(m["body"])
        messages.append({**m, "body": text, "signature": sig})
    return {"subject": str(msg["Subject"] or "(no subject)"), "headers": headers, "messages": messages,
            "attachments": attachments}


def email_view(ref: FileRef) -> View:
    return View("email", parse_eml(ref.path.read_bytes()))


# ---------------------------------------------------------------- team chat exports

def _is_team_chat(obj: Any) -> bool:
    return (isinstance(obj, dict) and isinstance(obj.get("messages"), list)
            and all(isinstance(m, dict) and "ts" in m for m in obj["messages"]))


def _tz(name: Any) -> timezone | ZoneInfo:
    try:
        return ZoneInfo(str(name)) if name else timezone.utc
    except (ZoneInfoNotFoundError, ValueError):
        return timezone.utc


def parse_team_chat(obj: dict[str, Any]) -> dict[str, Any]:
    """A Slack-style export: channel info and threads (parent + replies), oldest first."""
    tz = _tz((obj.get("export") or {}).get("timezone"))
    users: dict[str, dict[str, str]] = {}
    for u in obj.get("users", []) or []:
        if isinstance(u, dict) and "id" in u:
            prof = u.get("profile") or {}
            users[u["id"]] = {"name": u.get("real_name") or prof.get("real_name") or u.get("name") or u["id"],
                              "title": prof.get("title", "")}

    def who(m: dict) -> dict[str, str]:
        if m.get("user") in users:
            return users[m["user"]]
        prof = m.get("user_profile") or {}
        return {"name": prof.get("real_name") or m.get("username") or m.get("user") or "?", "title": ""}

    def text(m: dict) -> str:
        return re.sub(r"<@([A-Z0-9]+)>", lambda x: "@" + users.get(x.group(1), {"name": x.group(1)})["name"],
                      str(m.get("text", "")))

    def when(ts: str) -> str:
        try:
            return datetime.fromtimestamp(float(ts), tz).strftime("%a %d %b %Y %H:%M")
        except (TypeError, ValueError, OverflowError):
            return str(ts)

    threads: dict[str, dict[str, Any]] = {}
    for m in obj["messages"]:
        ts = str(m["ts"])
        root = str(m.get("thread_ts") or ts)
        entry = {"ts": ts, "when": when(ts), "who": who(m), "text": text(m), "edited": bool(m.get("edited")),
                 "reactions": [(r.get("name", ""), r.get("count", len(r.get("users", []))))
                               for r in m.get("reactions", []) or [] if isinstance(r, dict)],
                 "files": [f.get("name", "") for f in m.get("files", []) or [] if isinstance(f, dict)]}
        t = threads.setdefault(root, {"parent": None, "replies": []})
        if root == ts:
            t["parent"] = entry
        else:
            t["replies"].append(entry)
    ordered = []
    for root in sorted(threads, key=lambda r: float(r) if re.fullmatch(r"[0-9.]+", r) else 0.0):
        t = threads[root]
        t["replies"].sort(key=lambda e: e["ts"])
        if t["parent"] is None:  # replies whose parent is not in the export
            t["parent"], t["replies"] = t["replies"][0], t["replies"][1:]
        ordered.append(t)
    channel = obj.get("channel") or {}
    return {"channel": channel.get("name", ""), "topic": (channel.get("topic") or {}).get("value", ""),
            "purpose": (channel.get("purpose") or {}).get("value", ""), "workspace": (obj.get("export") or {}).get("workspace", ""),
            "threads": ordered, "messages": len(obj["messages"]), "people": len(users)}


def json_view(ref: FileRef) -> View:
    raw = _read_text(ref.path)
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError as e:
        return View("text", {"text": raw}, note=f"not valid JSON ({e.msg}, line {e.lineno}); shown as text")
    pretty = json.dumps(obj, indent=2, ensure_ascii=False)
    if _is_team_chat(obj):
        return View("team_chat", {**parse_team_chat(obj), "pretty": pretty})
    return View("json", {"html": jsonhtml.render(obj, max_rows=MAX_TABLE_ROWS), "pretty": pretty})


# ---------------------------------------------------------------- captions (VTT / SRT)

_CUE_TIME = re.compile(r"^(?P<start>(?:\d+:)?\d{1,2}:\d{2}[.,]\d{3})\s*-->\s*(?P<end>(?:\d+:)?\d{1,2}:\d{2}[.,]\d{3})")
_VOICE = re.compile(r"<v(?:\.[^ >]+)?\s+([^>]+)>")


def parse_captions(text: str) -> dict[str, Any]:
    notes, cues, header = [], [], []
    for block in re.split(r"\n\s*\n", text.replace("\r\n", "\n").strip()):
        lines = block.split("\n")
        if lines[0].startswith("WEBVTT"):
            header += [ln for ln in lines[1:] if ln.strip()]
            continue
        if lines[0].startswith("NOTE"):
            notes.append("\n".join([lines[0][4:].strip(), *lines[1:]]).strip())
            continue
        idx = next((i for i, ln in enumerate(lines) if _CUE_TIME.match(ln.strip())), None)
        if idx is None:
            continue
        m = _CUE_TIME.match(lines[idx].strip())
        body = "\n".join(lines[idx + 1:])
        voice = _VOICE.search(body)
        speaker = voice.group(1).strip() if voice else ""
        clean = re.sub(r"</?[^>]+>", "", body).strip()
        if not speaker and ":" in clean.split("\n")[0][:40]:
            speaker, clean = (s.strip() for s in clean.split(":", 1))
        cues.append({"start": m["start"].replace(",", "."), "end": m["end"].replace(",", "."),
                     "speaker": speaker, "text": clean})
    return {"header": header, "notes": notes, "cues": cues,
            "speakers": sorted({c["speaker"] for c in cues if c["speaker"]})}


def captions_view(ref: FileRef) -> View:
    return View("captions", parse_captions(_read_text(ref.path)))


# ---------------------------------------------------------------- tables

def csv_view(ref: FileRef) -> View:
    text = _read_text(ref.path)
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    rows = list(csv.reader(io.StringIO(text), dialect))
    if not rows:
        return View("text", {"text": text}, note="empty CSV")
    body = rows[1:MAX_TABLE_ROWS + 1]
    return View("table", {"header": rows[0], "rows": body, "total": len(rows) - 1,
                          "cut": max(0, len(rows) - 1 - len(body))})


def _cell_text(value: Any, number_format: str) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M") if (value.hour, value.minute) != (0, 0) else value.strftime("%Y-%m-%d")
    if isinstance(value, (date, time)):
        return value.isoformat()
    if isinstance(value, float):
        if "%" in number_format:
            return f"{value * 100:.{number_format.count('0') - 1 if '.' in number_format else 0}f}%"
        if "0.00" in number_format:
            return f"{value:,.2f}" if "," in number_format else f"{value:.2f}"
        return f"{value:g}"
    if isinstance(value, int) and "," in number_format:
        return f"{value:,}"
    return str(value)


def _rgb(color: Any) -> Optional[str]:
    rgb = getattr(color, "rgb", None)
    if isinstance(rgb, str) and len(rgb) == 8 and rgb not in ("00000000",) and re.fullmatch(r"[0-9A-Fa-f]{8}", rgb):
        return "#" + rgb[2:]
    return None


def xlsx_view(ref: FileRef) -> View:
    import openpyxl  # noqa: PLC0415  (deferred: openpyxl, only for a spreadsheet)

    wb = openpyxl.load_workbook(ref.path, data_only=False)
    cached = openpyxl.load_workbook(ref.path, data_only=True)
    sheets = []
    for ws in wb.worksheets:
        values = cached[ws.title]
        spans: dict[tuple[int, int], tuple[int, int]] = {}
        hidden: set[tuple[int, int]] = set()
        for rng in ws.merged_cells.ranges:
            spans[(rng.min_row, rng.min_col)] = (rng.max_row - rng.min_row + 1, rng.max_col - rng.min_col + 1)
            for r in range(rng.min_row, rng.max_row + 1):
                for c in range(rng.min_col, rng.max_col + 1):
                    if (r, c) != (rng.min_row, rng.min_col):
                        hidden.add((r, c))
        rows = []
        max_row = min(ws.max_row, MAX_TABLE_ROWS)
        for r in range(1, max_row + 1):
            cells = []
            for c in range(1, ws.max_column + 1):
                if (r, c) in hidden:
                    continue
                cell = ws.cell(r, c)
                formula = cell.value if isinstance(cell.value, str) and cell.value.startswith("=") else None
                value = values.cell(r, c).value if formula else cell.value
                style = []
                fill = _rgb(cell.fill.fgColor) if cell.fill is not None and cell.fill.fill_type == "solid" else None
                if fill:
                    style.append(f"background:{fill}")
                font_color = _rgb(cell.font.color) if cell.font is not None and cell.font.color is not None else None
                if font_color and font_color.lower() != "#000000":
                    style.append(f"color:{font_color}")
                rs, cs = spans.get((r, c), (1, 1))
                cells.append({"text": _cell_text(value, cell.number_format or "") if value is not None
                              else (formula or ""), "formula": formula, "bold": bool(cell.font and cell.font.b),
                              "italic": bool(cell.font and cell.font.i), "style": ";".join(style),
                              "rowspan": rs, "colspan": cs, "num": isinstance(value, (int, float))})
            rows.append(cells)
        sheets.append({"title": ws.title, "rows": rows, "cut": max(0, ws.max_row - max_row),
                       "state": ws.sheet_state, "cols": ws.max_column})
    return View("xlsx", {"sheets": sheets})


# ---------------------------------------------------------------- documents

def docx_view(ref: FileRef) -> View:
    import docx  # noqa: PLC0415  (deferred: python-docx, only for a Word file)
    from docx.table import Table  # noqa: PLC0415  (deferred: python-docx, only for a Word file)
    from docx.text.paragraph import Paragraph  # noqa: PLC0415  (deferred: python-docx, only for a Word file)

    doc = docx.Document(str(ref.path))

    def runs(p: Paragraph) -> list[dict[str, Any]]:
        return [{"text": r.text, "bold": bool(r.bold), "italic": bool(r.italic)} for r in p.runs if r.text]

    blocks: list[dict[str, Any]] = []
    for el in doc.element.body.iterchildren():
        tag = el.tag.rsplit("}", 1)[-1]
        if tag == "p":
            p = Paragraph(el, doc)
            style = (p.style.name if p.style is not None else "") or ""
            if not p.text.strip():
                continue
            if style == "Title":
                blocks.append({"type": "title", "runs": runs(p)})
            elif style.startswith("Heading"):
                level = int(style.split()[-1]) if style.split()[-1].isdigit() else 2
                blocks.append({"type": "heading", "level": min(max(level + 1, 2), 6), "runs": runs(p)})
            elif style.startswith("List"):
                ordered = "Number" in style
                prev = blocks[-1] if blocks else {}
                number = prev.get("number", 0) + 1 if ordered and prev.get("ordered") else 1
                blocks.append({"type": "item", "ordered": ordered, "number": number, "runs": runs(p)})
            else:
                blocks.append({"type": "para", "runs": runs(p), "style": style})
        elif tag == "tbl":
            t = Table(el, doc)
            blocks.append({"type": "table", "rows": [[c.text for c in row.cells] for row in t.rows]})
    section = doc.sections[0] if doc.sections else None
    header = [p.text for p in section.header.paragraphs if p.text.strip()] if section else []
    footer = [p.text for p in section.footer.paragraphs if p.text.strip()] if section else []
    props = doc.core_properties
    meta = [(k, v) for k, v in (("title", props.title), ("author", props.author), ("subject", props.subject)) if v]
    return View("docx", {"blocks": blocks, "header": header, "footer": footer, "meta": meta})


_pdf_lock = threading.Lock()


def pdf_pages(pdf: Path, sha256: str, cache_dir: Path, dpi: int = PDF_DPI) -> list[Path]:
    """PNG pages of a PDF, rendered once by pdftoppm into `cache_dir/desk/pdf/<sha>-<dpi>/`."""
    if not re.fullmatch(r"[0-9a-f]{64}", sha256):
        raise FactforgeError(f"bad sha256 {sha256!r}", pdf)
    out = Path(cache_dir) / "desk" / "pdf" / f"{sha256}-{dpi}"
    if not out.is_dir():
        with _pdf_lock:
            if not out.is_dir():
                out.parent.mkdir(parents=True, exist_ok=True)
                tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=out.parent))
                try:
                    r = subprocess.run(["pdftoppm", "-r", str(dpi), "-png", str(pdf), str(tmp / "p")],
                                       capture_output=True, text=True, timeout=300)
                    if r.returncode != 0:
                        raise FactforgeError(f"pdftoppm failed: {r.stderr.strip()[:300]}", pdf)
                    for i, page in enumerate(sorted(tmp.glob("p-*.png"), key=lambda p: int(p.stem.rsplit("-", 1)[1])), 1):
                        page.rename(tmp / f"page-{i}.png")
                    os.replace(tmp, out)
                finally:
                    if tmp.exists():
                        shutil.rmtree(tmp, ignore_errors=True)
    return sorted(out.glob("page-*.png"), key=lambda p: int(p.stem.split("-")[1]))


def pdf_page_url(sha256: str, page: int) -> str:
    return f"/render/pdf/{sha256}/{page}.png"


def _png_size(path: Path) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    head = path.read_bytes()[16:24]
    return int.from_bytes(head[:4], "big"), int.from_bytes(head[4:], "big")


def pdf_view(ref: FileRef, cache_dir: Path) -> View:
    pages = pdf_pages(ref.path, ref.sha256, cache_dir)
    return View("pdf", {"pages": [{"url": pdf_page_url(ref.sha256, i), "size": _png_size(p)}
                                  for i, p in enumerate(pages, 1)]})


# ---------------------------------------------------------------- media and pages

def image_view(ref: FileRef) -> View:
    width = height = None
    try:
        from PIL import Image  # noqa: PLC0415  (deferred: Pillow, only for an image)
        with Image.open(ref.path) as im:
            width, height = im.size
    except (OSError, ImportError):
        pass
    return View("image", {"width": width, "height": height})


def audio_view(ref: FileRef) -> View:
    return View("audio", {"mime": _MIME.get(ref.path.suffix.lower(), "audio/wav")})


def video_view(ref: FileRef) -> View:
    return View("video", {"mime": _MIME.get(ref.path.suffix.lower(), "video/mp4")})


def html_view(ref: FileRef) -> View:
    return View("html", {})


def binary_view(ref: FileRef) -> View:
    return View("binary", {"size": ref.path.stat().st_size})


_MIME = {".wav": "audio/wav", ".mp3": "audio/mpeg", ".ogg": "audio/ogg", ".flac": "audio/flac",
         ".mp4": "video/mp4", ".webm": "video/webm", ".mov": "video/quicktime"}

_BY_EXT: dict[str, Callable[..., View]] = {
    ".txt": chat_view, ".log": chat_view, ".eml": email_view, ".json": json_view, ".vtt": captions_view,
    ".srt": captions_view, ".csv": csv_view, ".tsv": csv_view, ".xlsx": xlsx_view, ".docx": docx_view,
    ".html": html_view, ".htm": html_view, ".png": image_view, ".jpg": image_view, ".jpeg": image_view,
    ".gif": image_view, ".webp": image_view, ".wav": audio_view, ".mp3": audio_view, ".ogg": audio_view,
    ".flac": audio_view, ".mp4": video_view, ".webm": video_view, ".mov": video_view,
}

# Viewers that show what an extractor read (OCR, speech, text layer) beside the file.
SHOWS_EXTRACTION = {"pdf", "image", "audio", "video"}


_views: "OrderedDict[tuple[str, str, str], View]" = OrderedDict()
_views_lock = threading.Lock()
VIEW_MEMO_SIZE = 256


def view_file(ref: FileRef, cache_dir: Optional[Path]) -> View:
    """The view of one file, memoised by (sha256, extension, cache dir): a file's bytes are
    fixed by its sha256, so a second reviewer opening it does not parse it again. Raises
    FactforgeError for a file that cannot be read as what its extension says (the page shows
    the message instead of a viewer)."""
    if not ref.path.is_file():
        raise FactforgeError("file is missing", ref.path)
    key = (ref.sha256, ref.path.suffix.lower(), str(cache_dir))
    with _views_lock:
        if key in _views:
            _views.move_to_end(key)
            return _views[key]
    view = _view_file(ref, cache_dir)
    with _views_lock:
        _views[key] = view
        while len(_views) > VIEW_MEMO_SIZE:
            _views.popitem(last=False)
    return view


def _view_file(ref: FileRef, cache_dir: Optional[Path]) -> View:
    ext = ref.path.suffix.lower()
    try:
        if ext == ".pdf":
            if cache_dir is None:
                return binary_view(ref)
            return pdf_view(ref, cache_dir)
        fn = _BY_EXT.get(ext)
        if fn is not None:
            return fn(ref)
        raw = ref.path.read_bytes()[:4096]
        if b"\x00" in raw:
            return binary_view(ref)
        return text_view(ref)
    except FactforgeError:
        raise
    except Exception as e:  # a damaged file must show as a message, not a traceback
        raise FactforgeError(f"cannot read as {ext or 'text'}: {type(e).__name__}: {e}", ref.path) from None

