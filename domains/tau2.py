"""Import a tau2-bench domain folder as a factforge domain pack (`factforge import-tau2`).

A tau2-bench domain folder holds a `policy.md` (or, for knowledge-base domains, a
`documents/` folder of JSON files with `id`, `title` and `content`), usually a `db.json` and a
`tasks.json`. The pack written to `<into>/<name>/` holds:

- `policy.md`, copied verbatim; or `policy/<NNNN>-<slug>.md`, one file per document sorted by
  document id, each headed `# <title>` (a `policy.md` next to `documents/` becomes
  `policy/0000-policy.md`);
- `db.json` and `tasks.json`, copied verbatim (the pack loader reads db.json when there is
  no seed.py; tasks are kept for later use);
- `domain.toml`: the business guessed from the folder name and policy, the world clock from
  the policy's "current time is ..." line, a neutral placeholder brand derived from the pack
  name and customer names taken from the database's user records.

Everything is written into a temporary folder beside the destination and renamed into place.
"""
from __future__ import annotations

import datetime as dt
import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import typer

from facts.errors import FactforgeError

from . import load_pack
from .scaffold import (DEFAULT_AGENTS, DEFAULT_CUSTOMERS, DEFAULT_MANAGERS, check_name, display_name,
                       placeholder_email_domain, resolve_into, toml_key, toml_value, usage_hint,
                       write_pack_atomically)

DEFAULT_NOW = "2025-01-06T09:00:00+00:00"
MAX_CUSTOMERS = 40
KNOWN_FILES = {"policy.md", "documents", "db.json", "tasks.json"}

# Abbreviation -> (UTC offset in hours, IANA zone). Abbreviations are read literally.
TZ_ABBREV = {
    "UTC": (0, "UTC"), "GMT": (0, "UTC"), "Z": (0, "UTC"),
    "EST": (-5, "America/New_York"), "EDT": (-4, "America/New_York"),
    "CST": (-6, "America/Chicago"), "CDT": (-5, "America/Chicago"),
    "MST": (-7, "America/Denver"), "MDT": (-6, "America/Denver"),
    "PST": (-8, "America/Los_Angeles"), "PDT": (-7, "America/Los_Angeles"),
}

# Business kind -> words that suggest it (folder name first, then word counts in the policy).
BUSINESS_WORDS = {
    "airline": ("airline", "flight", "flights", "baggage", "cabin", "passenger", "passengers", "airport"),
    "retail": ("retail", "order", "orders", "product", "products", "exchange", "shipping", "item", "items"),
    "banking": ("bank", "banking", "account", "accounts", "credit card", "debit card", "deposit", "transaction"),
    "telecom": ("telecom", "mobile", "data plan", "roaming", "sim", "phone line", "carrier"),
    "insurance": ("insurance", "policyholder", "claim", "claims", "premium", "deductible"),
    "healthcare": ("patient", "patients", "clinic", "appointment", "prescription"),
}

_NOW_RE = re.compile(
    r"current\s+(?:date\s+and\s+)?time\s+is\s+(?P<date>\d{4}-\d{2}-\d{2})"
    r"(?:[ T](?P<time>\d{1,2}:\d{2}(?::\d{2})?))?\s*(?P<tz>[A-Za-z]{1,4}\b|[+-]\d{2}:?\d{2})?",
    re.IGNORECASE)


@dataclass
class ImportReport:
    """What `import_tau2_domain` mapped and what it could not."""

    name: str
    source: Path
    path: Path
    business: str
    now: str
    now_from: str                      # "policy", "--now" or "default"
    customers_from_db: int
    policy_files: list[str] = field(default_factory=list)
    documents: int = 0
    db_tables: dict[str, int] = field(default_factory=dict)
    tasks: Optional[int] = None
    unmapped: list[str] = field(default_factory=list)
    facts: Optional[int] = None
    unparsed: Optional[int] = None
    unparsed_examples: list[str] = field(default_factory=list)


# --- reading the source -------------------------------------------------------------------
def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise FactforgeError(f"invalid JSON: {e.msg}", path, e.lineno) from None
    except UnicodeDecodeError as e:
        raise FactforgeError(f"not UTF-8 text (byte {e.start})", path) from None


def _slug(text: str, limit: int = 60) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s[:limit].rstrip("-") or "document"


def _documents(folder: Path, unmapped: list[str]) -> list[tuple[str, str, str]]:
    """(id, title, content) of every usable document, sorted by id (then file name)."""
    docs: list[tuple[str, str, str, str]] = []
    for f in sorted(folder.iterdir()):
        rel = f"documents/{f.name}"
        if f.name.startswith("."):
            continue
        if f.is_dir() or f.suffix.lower() != ".json":
            unmapped.append(f"{rel}{'/' if f.is_dir() else ''}: not a JSON document")
            continue
        try:
            data = json.loads(f.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            unmapped.append(f"{rel}: unreadable JSON ({getattr(e, 'msg', e)})")
            continue
        items = data if isinstance(data, list) else [data]
        for i, d in enumerate(items):
            where = rel if len(items) == 1 else f"{rel}[{i}]"
            if not isinstance(d, dict):
                unmapped.append(f"{where}: not an object with id, title and content")
                continue
            content = d.get("content")
            if not isinstance(content, str) or not content.strip():
                unmapped.append(f"{where}: document without content")
                continue
            doc_id = str(d.get("id") or f.stem)
            title = " ".join(str(d.get("title") or doc_id).split())
            docs.append((doc_id, f.name, title, content))
    docs.sort(key=lambda t: (t[0], t[1]))
    return [(i, t, c) for i, _, t, c in docs]


def document_markdown(title: str, content: str) -> str:
    body = content.replace("\r\n", "\n").replace("\r", "\n").strip("\n")
    first = next((ln.strip() for ln in body.splitlines() if ln.strip()), "")
    if first.lstrip("#").strip() == title and first.startswith("# "):
        return body + "\n"
    return f"# {title}\n\n{body}\n"


def parse_now(text: str) -> Optional[tuple[str, str]]:
    """(ISO datetime with offset, IANA zone) from a "The current time is 2024-05-15 15:00:00
    EST" line, or None when the text states no current time."""
    m = _NOW_RE.search(text)
    if not m:
        return None
    date = dt.date.fromisoformat(m["date"])
    hh, mm, ss = ([int(x) for x in (m["time"] or "00:00").split(":")] + [0])[:3]
    tz, zone = dt.timezone.utc, "UTC"
    raw = (m["tz"] or "").upper()
    if raw in TZ_ABBREV:
        hours, zone = TZ_ABBREV[raw]
        tz = dt.timezone(dt.timedelta(hours=hours))
    elif raw[:1] in "+-" and raw:
        digits = raw[1:].replace(":", "")
        off = dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
        tz = dt.timezone(off if raw[0] == "+" else -off)
    when = dt.datetime(date.year, date.month, date.day, hh, mm, ss, tzinfo=tz)
    return when.isoformat(), zone


def guess_business(folder_name: str, text: str) -> str:
    """The business kind: a kind named in the folder name wins, else the most frequent kind's
    words in the policy text; "general" when nothing matches."""
    tokens = set(re.split(r"[^a-z]+", folder_name.lower()))
    for kind, words in BUSINESS_WORDS.items():
        if kind in tokens or any(w in tokens for w in words if " " not in w):
            return kind
    low = text.lower()
    scores = {kind: sum(len(re.findall(rf"\b{re.escape(w)}\b", low)) for w in words)
              for kind, words in BUSINESS_WORDS.items()}
    best = max(scores, key=lambda k: scores[k])
    return best if scores[best] > 0 else "general"


def _table_records(value: Any) -> Any:
    """A table's records: tau2 knowledge-base tables wrap them as {"data": ..., "notes": ...}."""
    if isinstance(value, dict) and isinstance(value.get("data"), (dict, list)) and set(value) <= {"data", "notes"}:
        return value["data"]
    return value


def table_counts(db: Any) -> dict[str, int]:
    if not isinstance(db, dict):
        return {}
    out = {}
    for k, v in db.items():
        recs = _table_records(v)
        if isinstance(recs, (dict, list)):
            out[str(k)] = len(recs)
    return out


def _person_name(rec: dict) -> Optional[str]:
    n = rec.get("name")
    if isinstance(n, dict):
        first, last = n.get("first_name"), n.get("last_name")
    elif isinstance(n, str) and n.strip():
        return " ".join(n.split())
    else:
        first, last = rec.get("first_name"), rec.get("last_name")
    parts = [str(p).strip() for p in (first, last) if isinstance(p, str) and p.strip()]
    return " ".join(parts) if parts else None


def harvest_customers(db: Any, limit: int = MAX_CUSTOMERS) -> list[str]:
    """Distinct customer names from the user/customer tables, in database order."""
    names: list[str] = []
    if not isinstance(db, dict):
        return names
    for table, value in db.items():
        if not re.search(r"user|customer|member|client|passenger", str(table), re.IGNORECASE):
            continue
        recs = _table_records(value)
        for rec in (recs.values() if isinstance(recs, dict) else recs if isinstance(recs, list) else []):
            name = _person_name(rec) if isinstance(rec, dict) else None
            if name and name not in names:
                names.append(name)
                if len(names) >= limit:
                    return names
    return names


def _count_tasks(tasks: Any) -> int:
    if isinstance(tasks, dict) and isinstance(tasks.get("tasks"), list):
        return len(tasks["tasks"])
    return len(tasks) if isinstance(tasks, (list, dict)) else 0


def domain_toml(name: str, source_name: str, business: str, now: str, zone: str, customers: list[str]) -> str:
    disp = display_name(name)
    email = placeholder_email_domain(name)
    domain = {"name": name, "business": business, "now": now, "currency": "USD", "locale": "en_US",
              "timezone": zone, "description": f"Imported from the tau2-bench {source_name!r} domain."}
    brand = {"company": f"{disp} Co.", "short_name": disp, "email_domain": email, "website": f"www.{email}",
             "voice": "friendly", "tagline": "", "agents": DEFAULT_AGENTS, "managers": DEFAULT_MANAGERS,
             "customers": customers, "phone": "1-800-555-0100"}
    lines = [f"# Imported from the tau2-bench {source_name!r} domain folder by `factforge import-tau2`.",
             "# The brand is a neutral placeholder derived from the pack name: edit it to rebrand the pack.",
             "[domain]"]
    lines += [f"{toml_key(k)} = {toml_value(v)}" for k, v in domain.items()]
    lines += ["", "[brand]"]
    lines += [f"{toml_key(k)} = {toml_value(v)}" for k, v in brand.items()]
    return "\n".join(lines) + "\n"


# --- the import ---------------------------------------------------------------------------
def import_tau2_domain(src: Path, name: str, into: Optional[Path] = None, force: bool = False,
                       now: Optional[str] = None, decompose: bool = True) -> ImportReport:
    """Write the tau2-bench domain folder `src` as the pack `<into>/<name>/` and report what
    was mapped. `into` defaults as in `domains.scaffold.resolve_into`; `now` (ISO datetime
    with offset) sets the world clock when the policy states none. With `decompose`, the new
    pack's facts are counted."""
    src = Path(src)
    if not src.is_dir():
        raise FactforgeError("not a folder (expected a tau2-bench domain folder)", src)
    src = src.resolve()
    policy_md, docs_dir = src / "policy.md", src / "documents"
    if not policy_md.is_file() and not docs_dir.is_dir():
        raise FactforgeError("not a tau2-bench domain folder: it has no policy.md nor documents/", src)
    into = resolve_into(into)
    dest = check_name(name, into, force)
    if dest.resolve() == src or src.is_relative_to(dest.resolve()):
        raise FactforgeError("the destination would replace the source folder; choose another --into", dest)

    unmapped: list[str] = []
    for p in sorted(src.iterdir()):
        if p.name not in KNOWN_FILES and not p.name.startswith(".") and p.name != "__pycache__":
            unmapped.append(f"{p.name}{'/' if p.is_dir() else ''}: not a file the importer knows")
    policy_text = policy_md.read_text(encoding="utf-8") if policy_md.is_file() else ""
    docs = _documents(docs_dir, unmapped) if docs_dir.is_dir() else []
    if not policy_text.strip() and not docs:
        raise FactforgeError("no policy text: policy.md is empty and no document has content", src)
    db_path, tasks_path = src / "db.json", src / "tasks.json"
    db = _read_json(db_path) if db_path.is_file() else None
    if db is not None and not isinstance(db, dict):
        raise FactforgeError("db.json must hold an object of tables", db_path)
    tasks = _read_json(tasks_path) if tasks_path.is_file() else None

    all_text = policy_text + "\n" + "\n".join(c for _, _, c in docs)
    stated = parse_now(all_text)
    if now is not None:
        try:
            when = dt.datetime.fromisoformat(now)
        except ValueError:
            raise FactforgeError(f"--now {now!r} is not an ISO datetime") from None
        if when.tzinfo is None:
            raise FactforgeError(f"--now {now!r} needs a UTC offset (e.g. 2025-01-06T09:00:00-05:00)")
        now_iso, zone, now_from = when.isoformat(), (stated[1] if stated else "UTC"), "--now"
    elif stated:
        (now_iso, zone), now_from = stated, "policy"
    else:
        now_iso, zone, now_from = DEFAULT_NOW, "UTC", "default"
    business = guess_business(src.name, all_text)
    harvested = harvest_customers(db)
    customers = harvested + [c for c in DEFAULT_CUSTOMERS if c not in harvested][:max(0, 12 - len(harvested))]

    report = ImportReport(name=name, source=src, path=dest, business=business, now=now_iso, now_from=now_from,
                          customers_from_db=len(harvested), documents=len(docs), unmapped=unmapped,
                          db_tables=table_counts(db) if db is not None else {},
                          tasks=_count_tasks(tasks) if tasks is not None else None)
    width = max(4, len(str(len(docs))))

    def fill(tmp: Path) -> None:
        (tmp / "domain.toml").write_text(domain_toml(name, src.name, business, now_iso, zone, customers),
                                         encoding="utf-8")
        if docs:
            (tmp / "policy").mkdir()
            if policy_text.strip():
                shutil.copyfile(policy_md, tmp / "policy" / f"{0:0{width}d}-policy.md")
                report.policy_files.append(f"policy/{0:0{width}d}-policy.md")
            for i, (doc_id, title, content) in enumerate(docs, 1):
                rel = f"policy/{i:0{width}d}-{_slug(title)}.md"
                (tmp / rel).write_text(document_markdown(title, content), encoding="utf-8")
                report.policy_files.append(rel)
        else:
            shutil.copyfile(policy_md, tmp / "policy.md")
            report.policy_files.append("policy.md")
        if db is not None:
            shutil.copyfile(db_path, tmp / "db.json")
        if tasks is not None:
            shutil.copyfile(tasks_path, tmp / "tasks.json")

    write_pack_atomically(dest, fill, force=force)
    if decompose:
        _count_facts(report)
    return report


def _count_facts(report: ImportReport) -> None:
    try:
        fs = load_pack(report.path).facts
    except FactforgeError as e:
        raise FactforgeError(f"pack written to {report.path}, but its policy does not decompose: {e.problem}",
                             e.file, e.line) from None
    report.facts, report.unparsed = len(fs.facts), len(fs.unparsed)
    report.unparsed_examples = [f"{Path(u.file).name}:{u.line}: {u.reason}: {u.text}" for u in fs.unparsed[:5]]


def print_report(report: ImportReport, console=None) -> None:
    from rich.console import Console  # noqa: PLC0415
    from rich.table import Table  # noqa: PLC0415

    out = console or Console()
    out.print(f"[green]imported[/green] {report.source} -> {report.path}", highlight=False)
    t = Table("mapped", "into the pack", show_header=True)
    if report.documents:
        t.add_row(f"{report.documents} documents", f"policy/ ({len(report.policy_files)} markdown files)")
    else:
        t.add_row("policy.md", "policy.md (verbatim)")
    t.add_row("business", report.business)
    t.add_row("world clock", f"{report.now} (" + {"policy": "from the policy", "--now": "from --now"}.get(
        report.now_from, "default: the policy states no current time; set it with --now") + ")")
    t.add_row("customers", f"{report.customers_from_db} names from db.json"
              + (" + placeholders" if report.customers_from_db < 12 else ""))
    if report.db_tables:
        t.add_row(f"db.json: {len(report.db_tables)} tables, {sum(report.db_tables.values())} records",
                  ", ".join(f"{k} {n}" for k, n in report.db_tables.items()))
    else:
        t.add_row("database", "none (no db.json)")
    t.add_row("tasks", f"tasks.json ({report.tasks} tasks)" if report.tasks is not None else "none (no tasks.json)")
    if report.facts is not None:
        t.add_row("facts", f"{report.facts} facts, {report.unparsed} unparsed lines")
    out.print(t)
    for u in report.unparsed_examples:
        out.print(f"  [yellow]unparsed[/yellow] {u}", highlight=False)
    for u in report.unmapped:
        out.print(f"[yellow]not mapped[/yellow] {u}", highlight=False)
    hint = usage_hint(report.path.parent)
    if hint:
        out.print(f"to use it: {hint}", highlight=False)


def import_tau2(path: Path = typer.Argument(..., help="A tau2-bench domain folder (policy.md or documents/, "
                                           "db.json, tasks.json)."),
                name: str = typer.Option(..., "--name", help="Name of the new domain pack."),
                into: Optional[Path] = typer.Option(None, "--into", help="Folder to create the pack in (default: "
                                                    "the first folder of $FACTFORGE_DOMAINS_DIR, else "
                                                    "./domains-imported; never the built-in domains/ unless given)."),
                force: bool = typer.Option(False, "--force", help="Replace an existing pack of that name there."),
                now: Optional[str] = typer.Option(None, "--now", help=f"World clock (ISO datetime with offset); "
                                                  f"default: the policy's 'current time is' line, else {DEFAULT_NOW}.")):
    """Import a tau2-bench domain folder as a factforge domain pack."""
    print_report(import_tau2_domain(path, name, into, force=force, now=now))
