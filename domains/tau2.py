"""Import a tau2-bench domain folder as a factforge domain pack (`factforge import-tau2`).

tau2-bench domain folders come in three layouts, all handled:

- one `policy.md` (airline, retail), usually with `db.json` and `tasks.json`;
- a knowledge base: `documents/*.json` (each with `id`, `title`, `content`), with or without
  a `policy.md` (banking_knowledge);
- several documents (telecom): `main_policy.md` plus manuals and workflow documents
  (`tech_support_manual.md`, `tech_support_workflow.md`, any `*policy*|*manual*|*workflow*|
  *guide*|*procedure*|*handbook*.md`), workflow graphs as Graphviz `.dot` files (top level
  or `workflows/`), the database as `db.toml` and the user simulator's as `user_db.toml`.

The pack written to `<into>/<name>/` holds:

- `policy.md`, copied verbatim, when the folder has exactly one policy document and nothing
  else to decompose; otherwise `policy/<NNNN>-<slug>.md`: the policy documents first (main
  policy first), then the knowledge-base documents sorted by id (each headed `# <title>`),
  then one document per workflow graph (`domains.dot`). In the multi-document layout every
  heading of a policy document moves one level down under the document's own title (its
  `# title`, or a title made from the file name), so each fact's section starts with the
  document it came from and two documents' "Overview" sections never merge;
- `db.json`: `db.json` copied verbatim, or `db.toml` as JSON (TOML dates and times as ISO
  strings); `user_db.json` likewise from `user_db.json` or `user_db.toml` (the user
  simulator's side, kept for tasks; the pack's seed database is `db.json`);
- `workflows/<name>.dot`: each workflow graph verbatim, the source of its workflow document;
- `tasks.json`, copied verbatim;
- `domain.toml`: the business guessed from the folder name and policy, the world clock from
  the policy's "current time is ..." line, a neutral placeholder brand derived from the pack
  name and customer names taken from the database's user or customer records (`name`,
  `full_name`, or `first_name` and `last_name`).

Every file the importer does not map (solo-mode policy variants, task splits, READMEs,
unknown files and folders) is listed with the reason. Undecodable text names its file and
line. Everything is written into a temporary folder beside the destination and renamed into
place.
"""
from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import typer

from facts.errors import FactforgeError
from facts.markdown import decode_text

from . import load_pack
from .dot import parse_dot, workflow_markdown
from .scaffold import (DEFAULT_AGENTS, DEFAULT_CUSTOMERS, DEFAULT_MANAGERS, check_name, display_name,
                       placeholder_email_domain, resolve_into, toml_key, toml_value, usage_hint,
                       write_pack_atomically)

DEFAULT_NOW = "2025-01-06T09:00:00+00:00"
MAX_CUSTOMERS = 40
MAIN_POLICIES = ("policy.md", "main_policy.md")
_POLICY_DOC = re.compile(r"(?:^|_)(?:policy|manual|workflow|guide|procedures?|handbook|playbook|sop)(?:_|$)", re.I)
_SOLO = re.compile(r"_solo$", re.IGNORECASE)
_GRAPH_EXT = (".dot", ".gv")

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
    policy_documents: list[str] = field(default_factory=list)  # source names of the policy documents
    documents: int = 0
    workflows: list[str] = field(default_factory=list)         # source names of the workflow graphs
    db_source: Optional[str] = None
    db_tables: dict[str, int] = field(default_factory=dict)
    user_db_source: Optional[str] = None
    user_db_tables: dict[str, int] = field(default_factory=dict)
    tasks: Optional[int] = None
    unmapped: list[str] = field(default_factory=list)
    facts: Optional[int] = None
    unparsed: Optional[int] = None
    unparsed_examples: list[str] = field(default_factory=list)


# --- reading the source -------------------------------------------------------------------
def read_text(path: Path) -> str:
    """A source file's text; invalid UTF-8 names the file and line."""
    return decode_text(path.read_bytes(), str(path))


def _read_json(path: Path) -> Any:
    try:
        return json.loads(read_text(path))
    except json.JSONDecodeError as e:
        raise FactforgeError(f"invalid JSON: {e.msg}", path, e.lineno) from None


def _plain(value: Any) -> Any:
    """TOML values as JSON values (dates and times as ISO strings)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    return value


def _read_toml(path: Path) -> dict:
    try:
        return _plain(tomllib.loads(read_text(path)))
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+), column \d+\)", str(e))
        raise FactforgeError(f"invalid TOML: {str(e).split(' (at line')[0]}", path,
                             int(m.group(1)) if m else None) from None


def _read_db(src: Path, stem: str, unmapped: list[str]) -> tuple[Optional[dict], Optional[Path]]:
    """`<stem>.json` or `<stem>.toml` (JSON wins when both exist) as an object of tables."""
    js, tm = src / f"{stem}.json", src / f"{stem}.toml"
    if js.is_file() and tm.is_file():
        unmapped.append(f"{tm.name}: {js.name} is used (both exist)")
    path = js if js.is_file() else tm if tm.is_file() else None
    if path is None:
        return None, None
    db = _read_json(path) if path.suffix == ".json" else _read_toml(path)
    if not isinstance(db, dict):
        raise FactforgeError(f"{path.name} must hold an object of tables", path)
    return db, path


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
            data = json.loads(read_text(f))
        except json.JSONDecodeError as e:
            unmapped.append(f"{rel}: unreadable JSON (line {e.lineno}: {e.msg})")
            continue
        except FactforgeError as e:
            unmapped.append(f"{rel}: unreadable (line {e.line}: {e.problem})")
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
    if not isinstance(db, dict):  # also None: no database
        return {}
    out = {}
    for k, v in db.items():
        recs = _table_records(v)
        if isinstance(recs, (dict, list)):
            out[str(k)] = len(recs)
    return out


def _person_name(rec: dict) -> Optional[str]:
    """A record's person name: `name` (a string, or first/last parts), `full_name`, or
    `first_name` and `last_name`."""
    n = rec.get("name")
    for whole in (n, rec.get("full_name")):
        if isinstance(whole, str) and whole.strip():
            return " ".join(whole.split())
    if isinstance(n, dict):
        first, last = n.get("first_name"), n.get("last_name")
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


def _label(stem: str) -> str:
    words = re.sub(r"[_\-]+", " ", stem).strip()
    return words[:1].upper() + words[1:] if words else "Document"


_HEADING = re.compile(r"^( {0,3})(#{1,6})(?=[ \t]|$)")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def prefixed_markdown(text: str, label: str) -> str:
    """A policy document of a multi-document folder, every heading one level down under the
    document's title: its own leading `# title` (which becomes `## title`), else `## label`."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").strip("\n").split("\n")
    first = next((ln for ln in lines if ln.strip()), "")
    out = [] if re.match(r"^ {0,3}#[ \t]", first) else [f"## {label}", ""]
    fence = ""
    for ln in lines:
        fm = _FENCE.match(ln)
        if fm and (not fence or fm.group(1)[0] == fence):
            fence = "" if fence else fm.group(1)[0]
        hm = None if fence or fm else _HEADING.match(ln)
        out.append(f"{hm.group(1)}{hm.group(2)}{'#' if len(hm.group(2)) < 6 else ''}{ln[hm.end():]}" if hm else ln)
    return "\n".join(out) + "\n"


@dataclass
class _Layout:
    policies: list[Path]
    graphs: list[Path]
    unmapped: list[str]


def _layout(src: Path) -> _Layout:
    """Which files of the folder are policy documents and workflow graphs; the rest, with
    the reason each is not mapped."""
    known_data = {"documents", "db.json", "db.toml", "user_db.json", "user_db.toml", "tasks.json", "workflows"}
    policies, graphs, unmapped = [], [], []
    stems = {p.stem.lower() for p in src.glob("*.md")}
    for p in sorted(src.iterdir()):
        name, low = p.name, p.name.lower()
        if name.startswith(".") or name == "__pycache__" or name in known_data:
            continue
        if p.is_file() and low.endswith(".md") and (low in MAIN_POLICIES or _POLICY_DOC.search(p.stem)):
            base = _SOLO.sub("", p.stem)
            if base != p.stem and base.lower() in stems:
                unmapped.append(f"{name}: solo-mode variant of {base}.md (restates it; not imported)")
            else:
                policies.append(p)
        elif p.is_file() and low.endswith(_GRAPH_EXT):
            graphs.append(p)
        elif p.is_file() and low.endswith(".md"):
            unmapped.append(f"{name}: not a policy document (no policy, manual or workflow in its name)")
        elif p.is_file() and re.match(r"(?:split_)?tasks.*\.json$", low):
            unmapped.append(f"{name}: a task variant or split (tasks.json is imported)")
        else:
            unmapped.append(f"{name}{'/' if p.is_dir() else ''}: not a file the importer knows")
    wf = src / "workflows"
    if wf.is_dir():
        for p in sorted(wf.iterdir()):
            if p.is_file() and p.name.lower().endswith(_GRAPH_EXT):
                graphs.append(p)
            elif not p.name.startswith("."):
                unmapped.append(f"workflows/{p.name}{'/' if p.is_dir() else ''}: not a Graphviz workflow (.dot)")
    policies.sort(key=lambda p: (p.name.lower() not in MAIN_POLICIES, p.name.lower()))
    return _Layout(policies, graphs, unmapped)


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
    docs_dir = src / "documents"
    lay = _layout(src)
    if not lay.policies and not docs_dir.is_dir():
        raise FactforgeError("not a tau2-bench domain folder: no policy document (policy.md, main_policy.md, "
                             "*_manual.md, *_workflow.md ...) and no documents/", src)
    into = resolve_into(into)
    dest = check_name(name, into, force)
    if dest.resolve() == src or src.is_relative_to(dest.resolve()):
        raise FactforgeError("the destination would replace the source folder; choose another --into", dest)

    unmapped = list(lay.unmapped)
    texts = [(p, read_text(p)) for p in lay.policies]
    texts = [(p, t) for p, t in texts if t.strip()]
    docs = _documents(docs_dir, unmapped) if docs_dir.is_dir() else []
    graphs = [(p, parse_dot(read_text(p), p)) for p in lay.graphs]
    if not texts and not docs:
        raise FactforgeError("no policy text: the policy documents are empty and no document has content", src)
    db, db_path = _read_db(src, "db", unmapped)
    user_db, user_db_path = _read_db(src, "user_db", unmapped)
    tasks_path = src / "tasks.json"
    tasks = _read_json(tasks_path) if tasks_path.is_file() else None

    all_text = "\n".join(t for _, t in texts) + "\n" + "\n".join(c for _, _, c in docs)
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
                          policy_documents=[p.name for p, _ in texts],
                          workflows=[p.relative_to(src).as_posix() for p, _ in graphs],
                          db_source=db_path.name if db_path else None, db_tables=table_counts(db),
                          user_db_source=user_db_path.name if user_db_path else None,
                          user_db_tables=table_counts(user_db),
                          tasks=_count_tasks(tasks) if tasks is not None else None)
    multi = len(texts) > 1 or bool(graphs)
    # (relative path, text) of every policy file, in reading order
    files: list[tuple[str, str]] = []
    if len(texts) == 1 and texts[0][0].name == "policy.md" and not docs and not graphs:
        files.append(("policy.md", texts[0][1]))
    else:
        n = len(texts) + len(docs) + len(graphs)
        width, i = max(4, len(str(n))), (0 if texts else 1)
        for p, t in texts:
            files.append((f"policy/{i:0{width}d}-{_slug(p.stem)}.md", prefixed_markdown(t, _label(p.stem)) if multi
                          else t))
            i += 1
        for _doc_id, title, content in docs:
            files.append((f"policy/{i:0{width}d}-{_slug(title)}.md", document_markdown(title, content)))
            i += 1
        for p, g in graphs:
            files.append((f"policy/{i:0{width}d}-workflow-{_slug(p.stem)}.md", workflow_markdown(g)))
            i += 1

    def fill(tmp: Path) -> None:
        (tmp / "domain.toml").write_text(domain_toml(name, src.name, business, now_iso, zone, customers),
                                         encoding="utf-8")
        for rel, text in files:
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp / rel).write_text(text, encoding="utf-8")
            report.policy_files.append(rel)
        for p, _ in graphs:
            (tmp / "workflows").mkdir(exist_ok=True)
            shutil.copyfile(p, tmp / "workflows" / p.name)
        for data, path, stem in ((db, db_path, "db"), (user_db, user_db_path, "user_db")):
            if path is not None and path.suffix == ".json":
                shutil.copyfile(path, tmp / f"{stem}.json")
            elif path is not None:
                (tmp / f"{stem}.json").write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n",
                                                  encoding="utf-8")
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
    if report.policy_files == ["policy.md"]:
        t.add_row("policy.md", "policy.md (verbatim)")
    else:
        if report.policy_documents:
            t.add_row(f"{len(report.policy_documents)} policy documents: {', '.join(report.policy_documents)}",
                      "policy/ (first); " + ("sections under each document's title" if
                                             len(report.policy_documents) > 1 or report.workflows else "verbatim"))
        if report.documents:
            t.add_row(f"{report.documents} documents", "policy/ (one markdown file each, by id)")
        if report.workflows:
            t.add_row(f"{len(report.workflows)} workflow graphs: {', '.join(report.workflows)}",
                      "policy/ (one workflow document each) + workflows/ (verbatim)")
        t.add_row("", f"{len(report.policy_files)} markdown files in policy/")
    t.add_row("business", report.business)
    t.add_row("world clock", f"{report.now} (" + {"policy": "from the policy", "--now": "from --now"}.get(
        report.now_from, "default: the policy states no current time; set it with --now") + ")")
    t.add_row("customers", f"{report.customers_from_db} names from {report.db_source or 'the database'}"
              + (" + placeholders" if report.customers_from_db < 12 else ""))
    for label, src, tables, dest in (("database", report.db_source, report.db_tables, "db.json"),
                                     ("user database", report.user_db_source, report.user_db_tables, "user_db.json")):
        if src:
            t.add_row(f"{src}: {len(tables)} tables, {sum(tables.values())} records",
                      f"{dest}: " + ", ".join(f"{k} {n}" for k, n in tables.items()))
        else:
            t.add_row(label, f"none (no {dest[:-5]}.json or {dest[:-5]}.toml)")
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


def import_tau2(path: Path = typer.Argument(..., help="A tau2-bench domain folder (policy.md, main_policy.md and "
                                           "manuals, or documents/; db.json or db.toml; workflows as .dot)."),
                name: str = typer.Option(..., "--name", help="Name of the new domain pack."),
                into: Optional[Path] = typer.Option(None, "--into", help="Folder to create the pack in (default: "
                                                    "the first folder of $FACTFORGE_DOMAINS_DIR, else "
                                                    "./domains-imported; never the built-in domains/ unless given)."),
                force: bool = typer.Option(False, "--force", help="Replace an existing pack of that name there."),
                now: Optional[str] = typer.Option(None, "--now", help=f"World clock (ISO datetime with offset); "
                                                  f"default: the policy's 'current time is' line, else {DEFAULT_NOW}.")):
    """Import a tau2-bench domain folder as a factforge domain pack.

    Example: factforge import-tau2 tau2-bench/data/tau2/domains/airline --name tau2_airline
    """
    print_report(import_tau2_domain(path, name, into, force=force, now=now))
