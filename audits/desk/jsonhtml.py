"""Any JSON value as HTML tables: the generic view of reports, JSON exports and plan sections.

- an object of scalars is a two-column table (key, value);
- an object with nested values shows its scalars first, then one titled block per nested key
  (nested objects such as a report's summary before nested lists);
- a list of objects is a table whose columns are the union of their keys (in order of first
  appearance), nested cells rendered the same way, recursively;
- a list of scalars is a short inline list.

Long lists are cut at `max_rows` with a note saying how many rows were left out (the page
offers the full view). Everything is escaped; nothing in the data can inject markup.
"""
from __future__ import annotations

import json
from typing import Any

from markupsafe import Markup, escape

SCALARS = (str, int, float, bool, type(None))


def _scalar(v: Any) -> Markup:
    if v is None:
        return Markup('<span class="null">null</span>')
    if isinstance(v, bool):
        return Markup(f'<span class="bool">{"true" if v else "false"}</span>')
    if isinstance(v, (int, float)):
        text = f"{v:.4g}" if isinstance(v, float) and not float(v).is_integer() else str(v)
        return Markup(f'<span class="num">{escape(text)}</span>')
    return escape(v)


def _is_record_list(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def render(value: Any, max_rows: int = 200, depth: int = 0) -> Markup:
    """HTML for `value`; `max_rows` caps every list (0 = no cap)."""
    if isinstance(value, SCALARS):
        return _scalar(value)
    if depth > 8:
        return Markup(f"<pre>{escape(json.dumps(value, indent=1, ensure_ascii=False)[:4000])}</pre>")
    if isinstance(value, dict):
        return _object(value, max_rows, depth)
    if _is_record_list(value):
        return _records(value, max_rows, depth)
    if isinstance(value, list):
        if all(isinstance(x, SCALARS) for x in value):
            shown = value[:max_rows] if max_rows else value
            more = len(value) - len(shown)
            items = Markup(", ").join(_scalar(x) for x in shown)
            tail = Markup(f' <span class="more">… {more} more</span>') if more else Markup("")
            return Markup(f'<span class="list">[{items}]{tail}</span>') if value else Markup('<span class="null">[]</span>')
        return Markup("<ol class=\"jlist\">") + Markup("").join(
            Markup("<li>") + render(x, max_rows, depth + 1) + Markup("</li>")
            for x in (value[:max_rows] if max_rows else value)) + Markup("</ol>") + _cut(len(value), max_rows)
    return escape(repr(value))


def _cut(n: int, max_rows: int) -> Markup:
    if max_rows and n > max_rows:
        return Markup(f'<p class="more">{n - max_rows} more row(s) not shown; '
                      f'<a href="?all=1">show all {n}</a></p>')
    return Markup("")


def _object(obj: dict, max_rows: int, depth: int) -> Markup:
    if not obj:
        return Markup('<span class="null">{}</span>')
    flat = {k: v for k, v in obj.items() if _flat(v)}
    # objects (summaries) before lists (per-item detail), each group in its own order
    nested = dict(sorted(((k, v) for k, v in obj.items() if k not in flat), key=lambda kv: not isinstance(kv[1], dict)))
    parts = []
    if flat:
        rows = Markup("").join(Markup(f'<tr><th scope="row">{escape(k)}</th><td>') + render(v, max_rows, depth + 1)
                               + Markup("</td></tr>") for k, v in flat.items())
        parts.append(Markup(f'<table class="kv">{rows}</table>'))
    for k, v in nested.items():
        size = len(v) if isinstance(v, (list, dict)) else 0
        if depth == 0:
            parts.append(Markup(f'<section class="jsec"><h3>{escape(k)} <small>{size}</small></h3>')
                         + render(v, max_rows, depth + 1) + Markup("</section>"))
        else:
            parts.append(Markup(f'<details class="jsec"{" open" if size <= 8 else ""}><summary>{escape(k)} '
                                f'<small>{size}</small></summary>') + render(v, max_rows, depth + 1)
                         + Markup("</details>"))
    return Markup("").join(parts)


def _flat(v: Any) -> bool:
    return isinstance(v, SCALARS) or (isinstance(v, list) and len(v) <= 12 and all(isinstance(x, SCALARS) for x in v))


def _records(rows: list[dict], max_rows: int, depth: int) -> Markup:
    """Scalar fields as columns; nested fields (a ticket's comments, a fact's carriers) folded
    in a row of their own under the record, so the table stays readable."""
    cols: list[str] = []
    for r in rows:
        for k in r:
            if k not in cols:
                cols.append(k)
    flat = [c for c in cols if all(_flat(r[c]) for r in rows if c in r)]
    nested = [c for c in cols if c not in flat]
    shown = rows[:max_rows] if max_rows else rows
    head = Markup("").join(Markup(f'<th scope="col">{escape(c)}</th>') for c in flat)
    body = []
    for r in shown:
        cells = Markup("").join(Markup('<td class="long">' if isinstance(r.get(c), str) and len(r[c]) > 40 else "<td>")
                                + (render(r[c], max_rows, depth + 1) if c in r else Markup(""))
                                + Markup("</td>") for c in flat)
        body.append(Markup(f"<tr>{cells}</tr>"))
        parts = [c for c in nested if c in r and r[c] not in (None, [], {})]
        if parts:
            inner = Markup("").join(
                Markup(f'<details class="jsub"><summary>{escape(c)} <small>'
                       f'{len(r[c]) if isinstance(r[c], (list, dict)) else ""}</small></summary>')
                + render(r[c], max_rows, depth + 1) + Markup("</details>") for c in parts)
            body.append(Markup(f'<tr class="sub"><td colspan="{max(len(flat), 1)}">') + inner + Markup("</td></tr>"))
    return (Markup(f'<div class="tablewrap"><table class="grid records"><thead><tr>{head}</tr></thead><tbody>')
            + Markup("").join(body) + Markup("</tbody></table></div>") + _cut(len(rows), max_rows))
