"""Small openpyxl helpers for the table renderers: styled header rows, column widths, typed
value cells (money/percent/count/date with real number formats), and a reproducible save
(fixed document properties and zip entry dates)."""
from __future__ import annotations

import datetime as dt
import io
import re
import zipfile
from pathlib import Path
from typing import Any, Optional

from facts.models import Slot, SlotType


HEADER_FILL = "1F3864"
HEADER_FONT = "FFFFFF"
_SYMBOL = {"USD": "$", "CAD": "$", "AUD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}
_DUR_UNIT = {"minute": "minutes", "hour": "hours", "day": "days", "business_day": "business days",
             "calendar_day": "calendar days", "week": "weeks", "month": "months", "year": "years"}
_QUAL = {"at_most": "Maximum", "at_least": "Minimum", "up_to": "Up to", "exactly": "Exactly",
         "more_than": "More than", "less_than": "Less than"}


def money_format(currency: Optional[str]) -> str:
    code = (currency or "USD").upper()
    sym = _SYMBOL.get(code)
    return f'"{sym}"#,##0.00' if sym else f'#,##0.00 "{code}"'


def _noun_after(statement: str, slot: Slot) -> str:
    """The word the policy writes after a count ('50 lb', '3 bikes'), for the unit column."""
    i = statement.find(slot.text)
    if i < 0 or not slot.text:
        return ""
    rest = statement[i + len(slot.text):]
    m = (re.match(r"\s+([A-Za-z][A-Za-z-]{0,15}\s+[A-Za-z][A-Za-z-]{0,15})(?=\s*(?:[.,;:)]|$))", rest)
         or re.match(r"\s+([A-Za-z][A-Za-z-]{0,15})\b", rest))
    word = m.group(1) if m else ""
    return "" if word.lower() in {"and", "or", "to", "of", "per", "in", "at", "the", "a", "an", "or", "times"} else word


def typed_value(slot: Slot, statement: str = "") -> tuple[Any, str, str]:
    """(cell value, number format, unit/basis label) for a slot. Ranges, counts with a unit
    and non-numeric values stay text, exactly as the policy wrote them."""
    v, vmax = slot.value, slot.value_max
    numeric = isinstance(v, (int, float)) and not isinstance(v, bool) and vmax is None
    qual = _QUAL.get(slot.qualifier or "", "")
    if slot.type == SlotType.money and numeric:
        return float(v), money_format(slot.unit), (slot.unit or "USD").upper()
    if slot.type == SlotType.percent and numeric:
        fmt = "0%" if float(v).is_integer() else "0.0##%"
        return float(v) / 100.0, fmt, qual or "Percent"
    if slot.type == SlotType.count and numeric and not slot.unit:  # "2GB", "once" keep their unit as text
        label = f"{qual} {_noun_after(statement, slot)}".strip()
        return (int(v) if float(v).is_integer() else float(v)), "#,##0", label or "Count"
    if slot.type == SlotType.duration and numeric:
        unit = _DUR_UNIT.get(slot.unit or "", (slot.unit or "").replace("_", " "))
        return (int(v) if float(v).is_integer() else float(v)), "General", f"{qual} {unit}".strip()
    if slot.type == SlotType.date and isinstance(v, str):
        try:
            return dt.datetime.fromisoformat(v[:10]), "yyyy-mm-dd", "Date"
        except ValueError:
            pass
    return slot.text, "@", qual or slot.type.value.capitalize()


def style_header(ws, row: int, ncols: int) -> None:
    from openpyxl.styles import Alignment, Border, Font, PatternFill, Side  # noqa: PLC0415  (heavy; loaded on first use)

    fill = PatternFill("solid", fgColor=HEADER_FILL)
    thin = Side(style="thin", color="BFBFBF")
    for c in range(1, ncols + 1):
        cell = ws.cell(row=row, column=c)
        cell.font = Font(bold=True, color=HEADER_FONT)
        cell.fill = fill
        cell.alignment = Alignment(vertical="center", wrap_text=True)
        cell.border = Border(bottom=thin)


def fit_columns(ws, widths: dict[int, int] | None = None, cap: int = 60) -> None:
    """Column widths from the longest value (capped); explicit widths win. Long text columns
    wrap."""
    from openpyxl.styles import Alignment  # noqa: PLC0415  (heavy; loaded on first use)
    from openpyxl.utils import get_column_letter  # noqa: PLC0415  (heavy; loaded on first use)

    longest: dict[int, int] = {}
    for row in ws.iter_rows():
        for cell in row:
            if cell.value is None:
                continue
            n = len(str(cell.value)) if not isinstance(cell.value, float) else 12
            longest[cell.column] = max(longest.get(cell.column, 0), n)
    for col, n in longest.items():
        width = (widths or {}).get(col) or min(cap, max(8, n + 2))
        ws.column_dimensions[get_column_letter(col)].width = width
        if n > cap:
            for (cell,) in ws.iter_rows(min_col=col, max_col=col, min_row=2):
                cell.alignment = Alignment(wrap_text=True, vertical="top")


def table(ws, header: list[str], rows: list[list[Any]], formats: dict[tuple[int, int], str] | None = None,
          start_row: int = 1, freeze: bool = True, autofilter: bool = True) -> None:
    """Header + rows at `start_row`; `formats` maps (row index in rows, column index) to a
    number format."""
    for c, h in enumerate(header, 1):
        ws.cell(row=start_row, column=c, value=h)
    style_header(ws, start_row, len(header))
    for r, row in enumerate(rows):
        for c, v in enumerate(row):
            cell = ws.cell(row=start_row + 1 + r, column=c + 1, value=v)
            fmt = (formats or {}).get((r, c))
            if fmt:
                cell.number_format = fmt
    if freeze:
        ws.freeze_panes = ws.cell(row=start_row + 1, column=1)
    if autofilter and rows:
        from openpyxl.utils import get_column_letter  # noqa: PLC0415  (heavy; loaded on first use)
        ws.auto_filter.ref = f"A{start_row}:{get_column_letter(len(header))}{start_row + len(rows)}"


def grid_sheet(ws, grid, heading: str, stamp: str) -> None:
    """A catalog grid (`transforms.catalog.Grid`) as a printable schedule: a heading and
    version line, then blocks (fees, rates, limits; a few products each) with attributes down
    the side and one column per product, typed money and percent cells (counts and durations
    as the policy wrote them, unit words included), footnotes below."""
    from openpyxl.styles import Font  # noqa: PLC0415  (heavy; loaded on first use)

    ws.cell(row=1, column=1, value=heading).font = Font(bold=True, size=12)
    ws.cell(row=2, column=1, value=stamp)
    r = 4
    for caption, block in grid.blocks():
        ws.cell(row=r, column=1, value=caption).font = Font(bold=True)
        rows, formats = [], {}
        for i, attr in enumerate(block.attributes):
            mark = " *" if any(c.changed for p in block.products if (c := block.cell(attr, p))) else ""
            row: list[Any] = [attr + mark]
            for j, prod in enumerate(block.products, 1):
                c = block.cell(attr, prod)
                if c is None:
                    row.append("")
                elif c.slot.type in (SlotType.money, SlotType.percent) and c.slot.value_max is None:
                    value, fmt, _unit = typed_value(c.slot)
                    row.append(value)
                    formats[(i, j)] = fmt
                else:
                    row.append(c.slot.text)
            rows.append(row)
        table(ws, [grid.dimension] + block.products, rows, formats=formats, start_row=r + 1, freeze=False,
              autofilter=False)
        r += len(rows) + 3
    notes = grid.footnotes()
    for k, note in enumerate(notes, 1):
        changed = k == len(notes) and note.startswith("Changed in this version")
        ws.cell(row=r + k - 1, column=1, value=("* " if changed else f"{k}. ") + note)
    fit_columns(ws, {1: 40}, cap=28)


_CORE_DATE = re.compile(rb"(<dcterms:(created|modified)[^>]*>)[^<]*(</dcterms:\2>)")


def save_reproducible(wb, out: Path, when: dt.datetime) -> None:
    """Save `wb` so that the same workbook gives the same bytes: document properties dated
    `when` (openpyxl stamps 'modified' with the clock on save) and zip entries dated `when`,
    in openpyxl's entry order."""
    naive = when.replace(tzinfo=None, microsecond=0)
    wb.properties.created = naive
    wb.properties.modified = naive
    buf = io.BytesIO()
    wb.save(buf)
    stamp = naive.strftime("%Y-%m-%dT%H:%M:%SZ").encode()
    date_time = (max(1980, naive.year), naive.month, naive.day, naive.hour, naive.minute, naive.second)
    src = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename == "docProps/core.xml":
                data = _CORE_DATE.sub(lambda m: m.group(1) + stamp + m.group(3), data)
            zi = zipfile.ZipInfo(info.filename, date_time=date_time)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = 0o600 << 16
            zi.create_system = 3
            dst.writestr(zi, data)
