"""New domain packs: `factforge new-domain NAME` writes a valid, buildable skeleton.

The skeleton is a small appliance-repair business whose policy exercises every kind of fact
the decomposer knows (a money value, a duration, a count, a table, numbered steps), with a
`rules.py` holding its values, a `seed.py` whose database follows them and a `check.py` that
recomputes them. Users replace the example rules and records with their own.

Shared with the tau2-bench importer (`domains.tau2`): where new packs go (`resolve_into`),
name rules (`check_name`), TOML rendering (`toml_value`) and the atomic write
(`write_pack_atomically`: build in a temporary folder beside the destination, then rename).
"""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import tempfile
import tomllib
from pathlib import Path
from typing import Callable, Optional

import typer

from facts.errors import FactforgeError

from . import BUILTIN_DIR, ENV_VAR, load_pack

NAME_RE = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
DEFAULT_INTO = "domains-imported"

# Neutral placeholder staff and customers for packs that do not name their own.
DEFAULT_AGENTS = ["Harriet Osei", "Mateus Carvalho", "Yuki Brennan", "Ravi Lindholm", "Sofia Achterberg",
                  "Kwame Adjei"]
DEFAULT_MANAGERS = ["Eleanor Vasquez", "Idris Mahmoud", "Greta Sorensen"]
DEFAULT_CUSTOMERS = ["Nadia Petrov", "Oscar Mensah", "Lily Chen-Harper", "Ahmed Karimi", "Beatriz Souza",
                     "Jonas Weber", "Fatima Zahra", "Liam O'Connell", "Mei Tanaka", "Diego Ramirez",
                     "Ingrid Nilsen", "Samuel Okoro"]


# --- shared helpers -----------------------------------------------------------------------
def resolve_into(into: Optional[Path]) -> Path:
    """The folder new packs go into: `into` when given; else the first folder of
    $FACTFORGE_DOMAINS_DIR (never the built-in domains folder), else ./domains-imported."""
    if into is not None:
        return Path(into).resolve()
    env = [d for d in os.environ.get(ENV_VAR, "").split(os.pathsep) if d]
    if env:
        target = Path(env[0]).resolve()
        if target == BUILTIN_DIR:
            raise FactforgeError(f"refusing to write into the built-in domains folder (first folder of "
                                 f"${ENV_VAR}); pass --into explicitly", target)
        return target
    return Path(DEFAULT_INTO).resolve()


def existing_domains(dirs: list[Path]) -> dict[str, Path]:
    """Domain name -> pack folder for every pack under `dirs` (and the usual search folders).
    Tolerant: a folder that does not exist or a pack that does not parse is skipped or known
    by its folder name, so that a broken pack elsewhere does not block creating a new one."""
    from . import search_dirs  # noqa: PLC0415

    found: dict[str, Path] = {}
    for d in [*dirs, *search_dirs()]:
        if not d.is_dir():
            continue
        for sub in sorted(p for p in d.iterdir() if p.is_dir() and (p / "domain.toml").is_file()):
            if sub.name.startswith("."):
                continue
            try:
                name = tomllib.loads((sub / "domain.toml").read_text(encoding="utf-8"))["domain"]["name"]
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, KeyError, TypeError):
                name = sub.name
            found.setdefault(str(name), sub.resolve())
    return found


def check_name(name: str, into: Path, force: bool = False) -> Path:
    """Validate a new pack's name and return its destination `<into>/<name>`. The name must be
    lowercase letters, digits and underscores (starting with a letter) and not already used
    by another pack; an existing pack at the destination itself is replaced only with `force`."""
    if not NAME_RE.match(name or ""):
        raise FactforgeError(f"invalid domain name {name!r}: use lowercase letters, digits and underscores, "
                             "starting with a letter (at most 40 characters)")
    dest = into / name
    if dest.exists() and not force:
        raise FactforgeError("a domain pack already exists here (pass --force to replace it)", dest)
    other = existing_domains([into]).get(name)
    if other is not None and other != dest.resolve():
        raise FactforgeError(f"domain name {name!r} is already used by the pack at {other}; choose another name")
    return dest


def toml_value(v) -> str:
    """A TOML literal for a str, bool, int, float or list of those (JSON string escapes are
    valid TOML basic-string escapes)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)):
        if not v:
            return "[]"
        return "[\n" + "".join(f"  {toml_value(x)},\n" for x in v) + "]"
    raise TypeError(f"no TOML form for {type(v).__name__}")


def toml_key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else toml_value(k)


def display_name(name: str) -> str:
    """'tau2_retail' -> 'Tau2 Retail'."""
    return " ".join(w[:1].upper() + w[1:] for w in name.split("_") if w)


def placeholder_email_domain(name: str) -> str:
    return name.replace("_", "-").strip("-") + ".example"


def _umask() -> int:
    m = os.umask(0)
    os.umask(m)
    return m


def write_pack_atomically(dest: Path, fill: Callable[[Path], None], force: bool = False) -> Path:
    """Create the pack folder `dest`: `fill(tmp)` writes every file into a temporary folder
    beside `dest`, the result must load as a pack, then it is renamed into place (an existing
    pack is replaced only with `force`). Nothing is left behind on failure."""
    dest = Path(dest)
    if dest.exists() and not force:
        raise FactforgeError("a domain pack already exists here (pass --force to replace it)", dest)
    if dest.exists() and not (dest / "domain.toml").is_file():
        raise FactforgeError("exists and is not a domain pack (no domain.toml); not replacing it", dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent))
    old: Optional[Path] = None
    try:
        os.chmod(tmp, 0o777 & ~_umask())
        fill(tmp)
        load_pack(tmp)
        if dest.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".old", dir=dest.parent))
            old.rmdir()
            dest.rename(old)
        tmp.rename(dest)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
        if old is not None and old.exists():
            if dest.exists():
                shutil.rmtree(old, ignore_errors=True)
            else:
                old.rename(dest)
    return dest


def usage_hint(into: Path) -> str:
    """How to make the packs in `into` visible to the other commands."""
    from . import search_dirs  # noqa: PLC0415

    if any(into.resolve() == d.resolve() for d in search_dirs() if d.exists()):
        return ""
    return f"add --domains-dir {into} to factforge commands (or put it in ${ENV_VAR})"


# --- the skeleton -------------------------------------------------------------------------
_DOMAIN_TOML = '''\
# Domain pack "__NAME__", created by `factforge new-domain`. Edit every field to describe your
# business. Build it with (DIR: the folder holding this pack's folder):
#   factforge build --domain __NAME__ --domains-dir DIR

[domain]
# Unique pack name: lowercase letters, digits and underscores. Keep it equal to the folder name.
name = "__NAME__"
# The kind of business, in a few words (written into generated documents and listings).
business = "appliance repair"
# The world clock: seed records and generated evidence are dated relative to this moment.
# An ISO 8601 date and time with its UTC offset.
now = "2026-03-02T09:00:00-05:00"
# ISO 4217 code of the currency every money value in the policy is in.
currency = "USD"
# Language and region of generated text.
locale = "en_US"
# IANA time zone of the business, used when times are shown to customers.
timezone = "America/New_York"
# One sentence about the business (shown in listings, manuals and knowledge-base articles).
description = "A home appliance repair service with call-out visits and yearly service plans."

[brand]
# The company name as it appears on letterheads, invoices and email signatures.
company = "__COMPANY__"
# The short name used in chats, subject lines and screenshots.
short_name = "__SHORT__"
# Domain of staff and support email addresses; keep the reserved .example ending for a
# fictional brand.
email_domain = "__EMAIL__"
# The website printed in footers and manuals.
website = "www.__EMAIL__"
# Tone of generated messages: friendly, formal or terse.
voice = "friendly"
# A one-line slogan for letterheads and email footers (may be empty).
tagline = "Fixed right, the first time."
# Support staff who answer customers in chats, emails and calls (at least 6 names).
agents = __AGENTS__
# Policy owners and approvers who sign memos and approve exceptions (at least 3 names).
managers = __MANAGERS__
# Customer names used in seed records and conversations (at least 12, diverse).
customers = __CUSTOMERS__
# Support phone number; numbers with 555 are reserved for fiction.
phone = "1-800-555-0199"

# Generic term -> this brand's name for it. A rebranded variant renames these everywhere.
[brand.products]
# The entry-level service plan (a row of the plan table in policy.md).
"basic plan" = "Basic"
# The larger service plan.
"plus plan" = "Plus"

# Record type -> identifier prefix used in the seed database and in generated records.
[brand.id_prefixes]
# Customers, e.g. CU1001.
customer = "CU"
# Service visits, e.g. SV3001.
visit = "SV"
# Payments of call-out fees.
payment = "PY"
# Refunds of call-out fees.
refund = "RF"
# Service plan subscriptions.
subscription = "PL"
'''

_POLICY_MD = '''\
# __COMPANY__ Service Policy

__COMPANY__ repairs household appliances in customers' homes.

## Service visits

- The call-out fee for a service visit is $45.
- A customer may book at most 3 service visits per week.
- A visit can be cancelled free of charge until 24 hours before its start time.
- A visit cancelled later than that is charged the full call-out fee.

## Service plans

Plan members pay a monthly price and get a number of free service visits each calendar year.

| Plan | Monthly price | Free visits per year |
|---|---|---|
| Basic | $9 | 2 visits |
| Plus | $19 | 6 visits |

## Refunds

When a customer cancels a paid visit in time, the agent refunds the call-out fee.

1. Confirm the visit number with the customer.
2. Check that the cancellation was made before the free cancellation deadline.
3. Refund the call-out fee to the original payment method within 5 business days.
'''

_RULES_PY = '''\
"""The __NAME__ policy as code: every policy value the seed database depends on (`VALUES`)
and the policy text stating each one (`VALUE_FACTS`, so a variant can change it). Replace
them together with the example policy.

Contract (domains/contract.py): `domain.py` declares what the pack's Python provides:
`VALUES` and `VALUE_FACTS` (here), `generate` (seed.py) and `check` (check.py). This pack
has no API and no held-out tests yet: to add them, write `api.py` (a
`domains.apikit.Catalog`) and `scenarios.py`, and declare them in `domain.py` (`catalog=`,
`scenarios=`); both import the policy's values and rules from here.
"""
from __future__ import annotations

from domains.seedkit import merged_values

VALUES: dict[str, float | int] = {
    "callout_fee": 45,
    "max_visits_per_week": 3,
    "free_cancel_hours": 24,
    "plan_price_basic": 9,
    "plan_price_plus": 19,
    "free_visits_basic": 2,
    "free_visits_plus": 6,
    "refund_business_days": 5,
}

# The policy sentence stating each value, its number written … (the first place it fits is the one).
VALUE_FACTS: dict[str, str] = {
    "callout_fee": "call-out fee for a service visit is …",
    "max_visits_per_week": "at most … service visits",
    "free_cancel_hours": "until …",
    "plan_price_basic": "| Basic | …",
    "plan_price_plus": "| Plus | …",
    "free_visits_basic": "| Basic | … | …",
    "free_visits_plus": "| Plus | … | …",
    "refund_business_days": "within …",
}

PLANS = ("basic", "plus")


def values_with(values: dict | None) -> dict[str, float | int]:
    """VALUES with `values` overriding; unknown keys and non-numbers are user errors."""
    return merged_values(VALUES, values, "__NAME__")
'''

_SEED_PY = '''\
"""Seed database for the __NAME__ domain: customers, plan subscriptions, service visits,
payments and refunds that obey policy.md. `generate(pack, seed, values)` builds it
deterministically from the pack's brand and clock and the policy values (rules.py)."""
from __future__ import annotations

import datetime as dt
import random

from domains.seedkit import add_business_days

from .rules import values_with

APPLIANCES = ("washing machine", "dishwasher", "refrigerator", "oven", "dryer", "freezer", "cooktop")
METHODS = ("credit card", "debit card", "bank transfer")


def ts(t: dt.datetime) -> str:
    return t.isoformat(timespec="minutes")


def generate(pack, seed: int, values: dict | None = None) -> dict:
    v = values_with(values)
    rng = random.Random(f"{pack.name}:{seed}")
    pre = pack.brand.id_prefixes
    now = pack.info.now
    plan_names = {"basic": pack.brand.products.get("basic plan", "Basic"),
                  "plus": pack.brand.products.get("plus plan", "Plus")}
    customers, subscriptions, visits, payments, refunds = {}, {}, {}, {}, {}
    for i, name in enumerate(pack.brand.customers):
        cid = f"{pre.get('customer', 'CU')}{1001 + i}"
        plan = rng.choice([None, "basic", "plus"])
        handle = ".".join(name.lower().replace("'", "").split())
        customers[cid] = {"id": cid, "name": name, "email": f"{handle}@mail.example",
                          "phone": f"555-01{rng.randint(10, 99)}", "plan": plan}
        if plan:
            sid = f"{pre.get('subscription', 'PL')}{2001 + len(subscriptions)}"
            started = now - dt.timedelta(days=rng.randint(40, 900))
            subscriptions[sid] = {"id": sid, "customer_id": cid, "plan": plan, "plan_name": plan_names[plan],
                                  "monthly_price": v[f"plan_price_{plan}"], "started": started.date().isoformat()}
    for cid, cust in customers.items():
        free_used: dict[int, int] = {}
        week_count: dict[tuple, int] = {}
        for _ in range(rng.randint(8, 16)):
            start = (now + dt.timedelta(days=rng.randint(-300, 30))).replace(hour=rng.choice([8, 10, 13, 15]),
                                                                               minute=0)
            week = start.isocalendar()[:2]
            if week_count.get(week, 0) >= v["max_visits_per_week"]:
                continue
            booked = start - dt.timedelta(days=rng.randint(2, 20), hours=rng.randint(0, 9))
            status = "scheduled" if start > now else rng.choice(["completed"] * 4 + ["cancelled"])
            cancelled_at = None
            if status == "cancelled":
                cancelled_at = start - dt.timedelta(hours=rng.choice([2, 6, 30, 48, 96]))
                cancelled_at = max(cancelled_at, booked + dt.timedelta(hours=1))
            if status != "cancelled":
                week_count[week] = week_count.get(week, 0) + 1
            allowance = v[f"free_visits_{cust['plan']}"] if cust["plan"] else 0
            free = status != "cancelled" and free_used.get(start.year, 0) < allowance
            if free:
                free_used[start.year] = free_used.get(start.year, 0) + 1
            vid = f"{pre.get('visit', 'SV')}{3001 + len(visits)}"
            visits[vid] = {"id": vid, "customer_id": cid, "appliance": rng.choice(APPLIANCES),
                           "booked_at": ts(booked), "start": ts(start), "status": status,
                           "cancelled_at": ts(cancelled_at) if cancelled_at else None,
                           "free_visit": free, "fee": 0 if free else v["callout_fee"]}
            if free:
                continue
            pid = f"{pre.get('payment', 'PY')}{4001 + len(payments)}"
            payments[pid] = {"id": pid, "visit_id": vid, "customer_id": cid, "amount": v["callout_fee"],
                             "method": rng.choice(METHODS), "paid_at": ts(booked)}
            if cancelled_at and (start - cancelled_at) >= dt.timedelta(hours=v["free_cancel_hours"]):
                done = add_business_days(cancelled_at, rng.randint(1, int(v["refund_business_days"])))
                rid = f"{pre.get('refund', 'RF')}{5001 + len(refunds)}"
                refunds[rid] = {"id": rid, "visit_id": vid, "payment_id": pid, "amount": v["callout_fee"],
                                "requested_at": ts(cancelled_at), "refunded_at": ts(done) if done <= now else None}
    return {"customers": customers, "subscriptions": subscriptions, "visits": visits,
            "payments": payments, "refunds": refunds}
'''

_CHECK_PY = '''\
"""Every way a __NAME__ database breaks the policy: `check(pack, db, values)` recomputes
prices, allowances, fees and refunds from the policy values (rules.py); empty when the
database obeys."""
from __future__ import annotations

import datetime as dt

from domains.seedkit import business_days_between

from .rules import values_with


def check(pack, db: dict, values: dict | None = None) -> list[str]:
    v = values_with(values)
    now = pack.info.now
    problems: list[str] = []
    customers, visits = db["customers"], db["visits"]
    pay_by_visit = {p["visit_id"]: p for p in db["payments"].values()}
    refund_by_visit = {r["visit_id"]: r for r in db["refunds"].values()}
    for s in db["subscriptions"].values():
        if s["customer_id"] not in customers:
            problems.append(f"subscription {s['id']}: unknown customer {s['customer_id']}")
        if s["monthly_price"] != v[f"plan_price_{s['plan']}"]:
            problems.append(f"subscription {s['id']}: monthly price {s['monthly_price']} != "
                            f"{v['plan_price_' + s['plan']]}")
    free_used: dict[tuple, int] = {}
    per_week: dict[tuple, int] = {}
    for vid, vis in visits.items():
        cust = customers.get(vis["customer_id"])
        if cust is None:
            problems.append(f"visit {vid}: unknown customer {vis['customer_id']}")
            continue
        start = dt.datetime.fromisoformat(vis["start"])
        if (vis["status"] == "scheduled") != (start > now):
            problems.append(f"visit {vid}: status {vis['status']} does not fit its start {vis['start']}")
        if vis["status"] != "cancelled":
            key = (vis["customer_id"], *start.isocalendar()[:2])
            per_week[key] = per_week.get(key, 0) + 1
            if per_week[key] > v["max_visits_per_week"]:
                problems.append(f"visit {vid}: more than {v['max_visits_per_week']} visits in one week")
        if vis["free_visit"]:
            allowance = v[f"free_visits_{cust['plan']}"] if cust["plan"] else 0
            key = (vis["customer_id"], start.year)
            free_used[key] = free_used.get(key, 0) + 1
            if free_used[key] > allowance or vis["fee"] != 0:
                problems.append(f"visit {vid}: free visit beyond the plan's {allowance} per year")
            continue
        if vis["fee"] != v["callout_fee"]:
            problems.append(f"visit {vid}: fee {vis['fee']} != call-out fee {v['callout_fee']}")
        pay = pay_by_visit.get(vid)
        if pay is None or pay["amount"] != vis["fee"]:
            problems.append(f"visit {vid}: no payment of {vis['fee']}")
            continue
        refund = refund_by_visit.get(vid)
        in_time = (vis["status"] == "cancelled" and
                   start - dt.datetime.fromisoformat(vis["cancelled_at"]) >= dt.timedelta(hours=v["free_cancel_hours"]))
        if in_time and refund is None:
            problems.append(f"visit {vid}: cancelled in time but not refunded")
        elif not in_time and refund is not None:
            problems.append(f"visit {vid}: refunded although not cancelled in time")
        elif refund is not None:
            if refund["payment_id"] != pay["id"] or refund["amount"] != pay["amount"]:
                problems.append(f"refund {refund['id']}: does not return payment {pay['id']}")
            if refund["refunded_at"] is not None:
                days = business_days_between(dt.datetime.fromisoformat(refund["requested_at"]).date(),
                                             dt.datetime.fromisoformat(refund["refunded_at"]).date())
                if days > v["refund_business_days"]:
                    problems.append(f"refund {refund['id']}: took {days} business days")
    return problems
'''

_DOMAIN_PY = '''\
"""The __NAME__ pack's code, declared: the policy values (rules.py), the seed database
(seed.py) and its check (check.py)."""
from __future__ import annotations

from domains.contract import PackCode

from . import check, rules, seed

DOMAIN = PackCode("__NAME__", values=rules.VALUES, value_facts=rules.VALUE_FACTS, generate=seed.generate,
                  check=check.check)
'''

_VARIANTS_README = '''\
# Variants of __NAME__

A variant is this business under another brand, with some policy values changed: every
fact, seed record and generated file of the variant carries the new names and values, and
the build checks that nothing of the base brand leaks into it. A benchmark built from a
variant cannot be answered from memory of the base pack.

One file per variant in this folder, `variants/<variant>.toml` (or `.yaml`); the file name
is the variant's name. Build it with

    factforge build --domain __NAME__@<variant> --domains-dir DIR

(DIR: the folder holding this pack's folder, unless it is in $FACTFORGE_DOMAINS_DIR.)
This README is not a variant: only .toml, .yaml and .yml files are.

A spec has these parts (domains/variant_spec.py documents every field):

- `[variant]`: `name` (the file name) and `description`;
- `[brand]`: new values for any `[brand]` field of domain.toml; `[brand.products]` and
  `[brand.id_prefixes]` are merged with the base ones by their generic key;
- `[renames]`: extra text renames, `"old" = "new"`;
- `[[values]]`: a changed policy value, addressed by `match` (a substring of one fact's
  statement, as `factforge facts __NAME__` prints it), `fact` (a fact id) or `slot_value`
  (the value as written, optionally with `section`), and `to` (the new value). The seed
  database follows: rules.py's `VALUE_FACTS` tells which `VALUES` key each fact states;
- `[database]` (`values`: explicit seed VALUES overrides) and `[[derived]]` (a VALUES key
  computed from others).

An example, `variants/tidewater.toml`:

```toml
[variant]
name = "tidewater"
description = "The same service under the Tidewater brand, with a higher call-out fee."

[brand]
company = "Tidewater Appliance Care"
short_name = "Tidewater"
email_domain = "tidewater.example"
website = "www.tidewater.example"

[brand.products]
"basic plan" = "Essential"
"plus plan" = "Complete"

[[values]]
match = "call-out fee for a service visit"
to = "$55"

[[values]]
match = "Plus — Free visits per year"
to = "8"
```
'''


_PACK_README = '''\
# The __NAME__ domain pack

Created by `factforge new-domain` as a working example of a small appliance-repair
business; replace its rules, brand and records with your own.

- `domain.toml`: the business, its world clock and its brand (every field is explained
  there).
- `policy.md`: the policy. Every bullet, numbered step, prose sentence and table cell becomes
  one atomic fact, filed under the headings above it (`factforge facts __NAME__` lists them).
  Write one rule per line, with explicit numbers and units ("$45", "24 hours", "at most 3
  visits") and explicit conditions (plan, product, tier). A table gives one fact per cell,
  with its row label and column header as conditions. Keep notes to yourself out of
  policy.md (in this file, say): every line of policy.md is read as policy.
- `domain.py`: declares the pack's code (`domains.contract.PackCode`): which functions
  generate and check the database, and, once you write them, the API and held-out tests.
- `rules.py`: the policy values the database depends on. When you change one, change it
  in policy.md and in `VALUES`; `VALUE_FACTS` names the sentence that states it, its number
  written `…`, so it stays as it is.
- `seed.py`: the seed database, generated from the values.
- `check.py`: every way a database breaks the policy; it must return no problems for the
  generated database.
- `variants/`: rebranded or re-valued copies of this business (see its README.md).
'''


def _fill(text: str, name: str) -> str:
    disp = display_name(name)
    return (text.replace("__NAME__", name)
            .replace("__COMPANY__", f"{disp} Co.").replace("__SHORT__", disp)
            .replace("__EMAIL__", placeholder_email_domain(name))
            .replace("__AGENTS__", toml_value(DEFAULT_AGENTS)).replace("__MANAGERS__", toml_value(DEFAULT_MANAGERS))
            .replace("__CUSTOMERS__", toml_value(DEFAULT_CUSTOMERS)))


def scaffold_domain(name: str, into: Optional[Path] = None, force: bool = False) -> Path:
    """Create the skeleton pack `<into>/<name>/` (README.md, domain.toml, policy.md, domain.py, rules.py,
    seed.py, check.py, variants/README.md) and return its folder. `into` defaults as in `resolve_into`."""
    into = resolve_into(into)
    dest = check_name(name, into, force)

    def fill(tmp: Path) -> None:
        (tmp / "domain.toml").write_text(_fill(_DOMAIN_TOML, name), encoding="utf-8")
        (tmp / "policy.md").write_text(_fill(_POLICY_MD, name), encoding="utf-8")
        (tmp / "rules.py").write_text(_fill(_RULES_PY, name), encoding="utf-8")
        (tmp / "seed.py").write_text(_fill(_SEED_PY, name), encoding="utf-8")
        (tmp / "check.py").write_text(_fill(_CHECK_PY, name), encoding="utf-8")
        (tmp / "domain.py").write_text(_fill(_DOMAIN_PY, name), encoding="utf-8")
        (tmp / "README.md").write_text(_fill(_PACK_README, name), encoding="utf-8")
        (tmp / "variants").mkdir()
        (tmp / "variants" / "README.md").write_text(_fill(_VARIANTS_README, name), encoding="utf-8")

    return write_pack_atomically(dest, fill, force=force)


def new_domain(name: str = typer.Argument(..., help="Name of the new domain: lowercase letters, digits, underscores."),
               into: Optional[Path] = typer.Option(None, "--into", help="Folder to create the pack in (default: the "
                                                   "first folder of $FACTFORGE_DOMAINS_DIR, else ./domains-imported)."),
               force: bool = typer.Option(False, "--force", help="Replace an existing pack of that name there.")):
    """Create a new domain pack skeleton (domain.toml, policy.md, domain.py, rules.py, seed.py, check.py,
    variants/).

    Example: factforge new-domain repairs --into my-domains
    """
    from rich.console import Console  # noqa: PLC0415

    out = Console(soft_wrap=True)  # the next-step command is printed whole, to be copied
    path = scaffold_domain(name, into, force)
    out.print(f"[green]created[/green] domain pack {name!r} at {path}", highlight=False)
    for f in ("README.md", "domain.toml", "policy.md", "domain.py", "rules.py", "seed.py", "check.py",
              "variants/README.md"):
        out.print(f"  {f}", highlight=False)
    hint = usage_hint(path.parent)
    where = f" --domains-dir {shlex.quote(str(path.parent))}" if hint else ""
    out.print(f"next: edit policy.md, rules.py and seed.py, then run `factforge facts {name}{where}`", highlight=False)
    if hint:
        out.print(f"to use it: {hint}", highlight=False)
