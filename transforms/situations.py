"""What customers and staff can talk about, read from the seed database.

Any domain's database works (nothing here names a domain): tables of records are read
generically. A record with a person's name is a *customer*; other records (reservations,
orders, accounts, cards, lines, disputes...) get an owner by following their `*_id` fields
(directly or through another record: a card's account's customer), a kind noun from the
table's name, and whatever describes them: a label (product, item, model, type), a route, a
date, an amount, a status, a last-four number. The writers and the haystack use these to let
a customer talk about their own situation ("I was charged $39.00 on my Fleet card in March")
instead of about a policy's section titles.

`view(db)` builds the index once per database object (a registered database view: a render
depends on the view's content, not on every record it was built from).
"""
from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional

from facts.surface import fmt_num

from .trace import db_view
from .trace import view as trace_view

_LABEL_KEYS = ("product", "plan_name", "name", "model", "kind", "type", "region_name", "description", "issue", "title",
               "reason", "payee", "category")
_DATE_KEYS = ("placed_at", "created_at", "date", "transaction_date", "bill_date", "opened_on", "ordered_on",
              "reported_on", "issued_on", "purchased_on", "activated_on", "period_end", "customer_since")
_MONEY_KEYS = ("total", "amount", "fare_total", "price", "fee", "subtotal")
_STATUS_DONE = {"delivered", "completed", "resolved", "posted", "paid", "landed", "closed", "confirmed", "active",
                "open", "done", "approved", "shipped", "in_favor", "settled"}
_STATUS_WAIT = {"pending", "processed", "processing", "in_progress", "escalated", "ordered", "requested",
                "under_review", "investigating", "scheduled", "awaiting", "waiting", "submitted"}
_INTERNAL_ID = re.compile(r"^(TXN|STM|PY|RPL|TU|RP)\d", re.I)


def singular(table: str) -> str:
    w = table.replace("_", " ").strip()
    if w.endswith("ies"):
        return w[:-3] + "y"
    if w.endswith(("sses", "ches", "shes", "xes")):
        return w[:-2]
    if w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    return w


def _iso_day(v: Any) -> Optional[dt.date]:
    if isinstance(v, str) and re.match(r"^\d{4}-\d{2}-\d{2}", v):
        try:
            return dt.date.fromisoformat(v[:10])
        except ValueError:
            return None
    return None


def _human(v: Any) -> str:
    return " ".join(str(v).replace("_", " ").split())


def name_of(rec: dict[str, Any]) -> Optional[str]:
    """The person's name a record holds ("name", "full_name", a first and last name), or None."""
    for key in ("name", "full_name", "customer_name", "cardholder_name"):
        v = rec.get(key)
        if isinstance(v, str) and re.fullmatch(r"[A-Za-z][A-Za-z .'-]+ [A-Za-z .'-]+", v.strip()):
            return v.strip().title() if v.isupper() else v.strip()
        if isinstance(v, dict) and v.get("first_name") and v.get("last_name"):
            return f"{v['first_name']} {v['last_name']}"
    if rec.get("first_name") and rec.get("last_name"):
        return f"{rec['first_name']} {rec['last_name']}"
    return None


def is_person(rec: dict[str, Any]) -> bool:
    """A record of a person, not a product or plan that happens to have a two-word name
    ("Wren Hanging Planter"): it has a person's contact or birth field."""
    return any(k in rec for k in ("email", "phone", "first_name", "date_of_birth", "dob", "birthday"))


def id_of(rec: dict[str, Any]) -> Optional[str]:
    """The record's first id field (`id` or `*_id`), as text, or None."""
    for key, v in rec.items():
        if (key == "id" or key.endswith("_id")) and isinstance(v, (str, int)) and not isinstance(v, bool):
            return str(v)
    return None


def db_tables(db: dict[str, Any]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """(table name, records) for every table of the seed database that holds records
    (a dict of dicts or a list of dicts), in sorted table order. A table wrapped as
    {"data": ..., "notes": "..."} (tau2-bench's banking_knowledge database) is read through
    its wrapper, as the importer counts it (`domains.tau2.table_counts`): read as one record,
    its customers' chats named made-up "booking" ids instead of their accounts."""
    for name in sorted(db or {}):
        tab = db[name]
        if isinstance(tab, dict) and isinstance(tab.get("data"), (dict, list)) and set(tab) <= {"data", "notes"}:
            tab = tab["data"]
        if isinstance(tab, dict):
            recs = [tab[k] for k in sorted(tab, key=str) if isinstance(tab[k], dict)]
        elif isinstance(tab, list):
            recs = [r for r in tab if isinstance(r, dict)]
        else:
            continue
        if recs:
            yield name, recs[:500]


@dataclass
class Rec:
    """A non-person record, described for conversation."""

    table: str
    kind: str                     # "reservation", "order", "card replacement"
    id: str
    owner: str = ""               # customer id ("" when none is linked)
    label: str = ""               # "Essential Checking", "Cloudrest Pillow Pair", "Nimbus 8"
    route: str = ""               # "Denver to Chicago"
    day: Optional[dt.date] = None
    amount: Optional[float] = None
    status: str = ""
    last4: str = ""
    internal: bool = False        # ids customers never quote (transactions, statements)
    detail: str = ""              # a proper name it is known by: the merchant, the payee, the parent
                                  # account's product ("Elm Street Bakery", "Essential Checking")
    fields: dict = field(default_factory=dict)

    def ref(self) -> str:
        """How a person names it: 'order #JR4672073', 'the card ending 0991'."""
        if self.last4:
            return f"{self.label or self.kind} ending {self.last4}"
        if self.internal or not self.id:
            what = self.label if self.label and self.kind in ("transaction", "transfer", "payment") else self.kind
            if self.amount is not None:
                what = f"{money(self.amount)} {what}"
            return f"the {what}" + (f" from {short_day(self.day)}" if self.day else "")
        return f"{self.kind} {self.id}"

    @property
    def done(self) -> bool:
        return self.status.replace(" ", "_") in _STATUS_DONE

    @property
    def waiting(self) -> bool:
        return self.status.replace(" ", "_") in _STATUS_WAIT


@dataclass
class Customer:
    id: str
    name: str
    email: str = ""
    phone: str = ""
    city: str = ""
    tier: str = ""                # loyalty tier, plan name...
    payment: list[str] = field(default_factory=list)  # "Visa ending 5584", "gift card GC549999"
    records: list[Rec] = field(default_factory=list)
    others: list[str] = field(default_factory=list)   # other people on their records (passengers...)

    @property
    def first(self) -> str:
        return self.name.split()[0]

    @property
    def last(self) -> str:
        return self.name.split()[-1]


@dataclass
class View:
    customers: list[Customer]
    records: list[Rec]
    things: list[str]             # catalog names (products, plans, routes) nobody owns
    cities: dict[str, str]

    def customer(self, rng: random.Random, where: Optional[callable] = None) -> Optional[Customer]:
        pool = [c for c in self.customers if where is None or where(c)]
        return rng.choice(pool) if pool else None

    def with_records(self) -> list[Customer]:
        return [c for c in self.customers if c.records]

    def find(self, value: str) -> list[Customer]:
        """Customers whose tier, records' labels or statuses name `value` (case-insensitive):
        the people a fact's condition ("Pinnacle", "Fleet Card") applies to."""
        v = value.lower().strip()
        if not v:
            return []
        out = []
        for c in self.customers:
            hay = [c.tier.lower()] + [r.label.lower() for r in c.records] + [r.kind.lower() for r in c.records]
            if any(h == v or (len(v) > 3 and v in h) for h in hay if h):
                out.append(c)
        return out


def money(v: float, symbol: str = "$") -> str:
    if float(v).is_integer():
        return f"{symbol}{fmt_num(int(v))}"
    return f"{symbol}{v:,.2f}"


def short_day(d: Optional[dt.date]) -> str:
    return f"{d.strftime('%B')} {d.day}" if d else ""


def _own_id(table: str, rec: dict) -> tuple[str, str]:
    """(key, value) of the record's own id."""
    sing = singular(table).replace(" ", "_")
    for key in ("id", f"{sing}_id"):
        v = rec.get(key)
        if isinstance(v, (str, int)) and not isinstance(v, bool):
            return key, str(v)
    for key, v in rec.items():
        if key.endswith("_id") and isinstance(v, (str, int)) and not isinstance(v, bool) and \
                sing.split("_")[-1] in key:
            return key, str(v)
    return "", ""


def _label(rec: dict) -> str:
    for k in _LABEL_KEYS:
        v = rec.get(k)
        if isinstance(v, str) and v.strip() and not re.fullmatch(r"[a-z]+\d+", v):
            return _human(v) if "_" in v else v.strip()
    items = rec.get("items")
    if isinstance(items, list) and items and isinstance(items[0], dict):
        names = [i.get("name") for i in items if isinstance(i, dict) and isinstance(i.get("name"), str)]
        if names:
            return names[0] if len(names) == 1 else f"{names[0]} and {len(names) - 1} more item{'s' * (len(names) > 2)}"
    name = rec.get("name")
    if isinstance(name, str):
        return name
    return ""


_NAME_WORD = re.compile(r"^(?:[A-Z\u00c0-\u00de][\w\u00e0-\u00ff.'&-]*|&|of|and|de|la)$")


def _proper(text: str) -> str:
    """`text` when it reads as a proper name ("Elm Street Bakery", "City Power & Light",
    "M. Okonjo"), else ""."""
    words = text.split()
    if not words or len(words) > 5 or re.search(r"[\d.]", text) or not words[0][:1].isupper():
        return ""
    return text if all(_NAME_WORD.match(w) for w in words) else ""


def _detail(rec: dict, label: str) -> str:
    """The proper name a record is known by besides its label: a merchant or payee ("Elm
    Street Bakery"; "Rent - Willowbrook Apartments" -> "Willowbrook Apartments")."""
    for k in ("merchant", "payee", "description", "vendor", "store"):
        v = rec.get(k)
        if not isinstance(v, str) or not v.strip() or v.strip() == label:
            continue
        v = v.strip()
        name = _proper(v.split(" - ", 1)[1]) if " - " in v else _proper(v)
        if name and len(name.split()) + (" - " not in v) >= 2 and name.lower() != label.lower() and \
                name.split()[-1].lower() not in ("fee", "rebate", "interest", "payment", "deposit", "withdrawal", "atm",
                                                 "employer"):
            return name
    return ""


def _route(rec: dict, cities: dict[str, str]) -> str:
    o, d = rec.get("origin_city") or rec.get("origin"), rec.get("destination_city") or rec.get("destination")
    if isinstance(o, str) and isinstance(d, str):
        return f"{cities.get(o, o)} to {cities.get(d, d)}"
    return ""


def _day(rec: dict) -> Optional[dt.date]:
    for k in _DATE_KEYS:
        d = _iso_day(rec.get(k))
        if d:
            return d
    fl = rec.get("flights")
    if isinstance(fl, list) and fl and isinstance(fl[0], dict):
        return _iso_day(fl[0].get("date"))
    return None


def _amount(rec: dict) -> Optional[float]:
    for k in _MONEY_KEYS:
        v = rec.get(k)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0:
            return float(v)
    return None


def _payment(methods: Any) -> list[str]:
    out = []
    vals = methods.values() if isinstance(methods, dict) else methods if isinstance(methods, list) else []
    for m in vals:
        if not isinstance(m, dict):
            continue
        last = m.get("last_four") or m.get("last4")
        brand = m.get("brand")
        kind = _human(m.get("type", "card"))
        if last:
            out.append(f"{(brand or kind).title() if brand else kind} ending {last}")
        elif m.get("id"):
            out.append(f"{kind} {m['id']}")
    return out


def _tier(rec: dict) -> str:
    for key in ("membership", "loyalty"):
        v = rec.get(key)
        if isinstance(v, dict) and isinstance(v.get("tier"), str):
            return v["tier"]
    for key in ("tier", "plan_name", "segment"):
        if isinstance(rec.get(key), str):
            return rec[key]
    return ""


def _city(rec: dict) -> str:
    for key in ("address", "default_address"):
        v = rec.get(key)
        if isinstance(v, dict) and isinstance(v.get("city"), str):
            return v["city"]
    return rec.get("city") if isinstance(rec.get("city"), str) else ""


def _last4(rec: dict) -> str:
    v = rec.get("last4") or rec.get("last_four")
    if v:
        return str(v)
    num = rec.get("number")
    digits = re.sub(r"\D", "", num) if isinstance(num, str) else ""
    return digits[-4:] if len(digits) >= 7 else ""


def build_view(db: dict) -> View:
    tables = list(db_tables(db))
    cities: dict[str, str] = {}
    for _t, recs in tables:
        for r in recs:
            for a, b in (("origin", "origin_city"), ("destination", "destination_city")):
                if isinstance(r.get(a), str) and isinstance(r.get(b), str):
                    cities[r[a]] = r[b]
    people: dict[str, Customer] = {}
    index: dict[str, tuple[str, dict]] = {}
    for t, recs in tables:
        for r in recs:
            _k, rid = _own_id(t, r)
            if rid:
                index.setdefault(rid, (t, r))
            name = name_of(r) if is_person(r) else None
            pid = rid or id_of(r) or ""
            if name and pid and pid not in people:
                people[pid] = Customer(pid, name, email=str(r.get("email") or ""), phone=str(r.get("phone") or ""),
                                       city=_city(r), tier=_tier(r), payment=_payment(r.get("payment_methods")))

    def owner_of(r: dict, own_key: str, depth: int = 0) -> str:
        for k, v in r.items():
            if k == own_key or not k.endswith("_id") or not isinstance(v, (str, int)):
                continue
            v = str(v)
            if v in people:
                return v
            if depth < 3 and v in index:
                t2, r2 = index[v]
                o = owner_of(r2, _own_id(t2, r2)[0], depth + 1)
                if o:
                    return o
        return ""

    records: list[Rec] = []
    things: list[str] = []
    for t, recs in tables:
        for r in recs:
            key, rid = _own_id(t, r)
            if rid in people:
                continue
            owner = owner_of(r, key)
            kind = singular(t)
            label = _label(r)
            rec = Rec(t, kind, rid, owner, label=label, route=_route(r, cities), day=_day(r), amount=_amount(r),
                      status=_human(r.get("status", "")) if isinstance(r.get("status"), str) else "",
                      last4=_last4(r), detail=_detail(r, label),
                      internal=bool(_INTERNAL_ID.match(rid)) or not rid)
            if not rid and rec.amount is None and rec.day is None:
                continue
            if owner:
                records.append(rec)
                people[owner].records.append(rec)
                for p in r.get("passengers", []) if isinstance(r.get("passengers"), list) else []:
                    n = name_of(p) if isinstance(p, dict) else None
                    if n and n != people[owner].name and n not in people[owner].others:
                        people[owner].others.append(n)
            elif (label or rec.route) and (label or rec.route) not in things:
                things.append(label or rec.route)
    by_id = {r.id: r for r in records if r.id}
    for t, recs in tables:  # a record with no name of its own is known by its parent's ("the
        for r in recs:      # Essential Checking statement")
            _k, rid = _own_id(t, r)
            rec = by_id.get(rid)
            if rec is None or rec.label or rec.detail:
                continue
            for k, v in r.items():
                parent = by_id.get(str(v)) if k.endswith("_id") and k != _k and isinstance(v, (str, int)) else None
                if parent is not None and parent.label and parent.kind != rec.kind:
                    rec.detail = parent.label
                    break
    return View(list(people.values()), records, things, cities)


@db_view("situations")
def _situations(db: dict) -> View:
    return build_view(db or {})


def view(db: dict) -> View:
    """The view of `db`, built once per database object. A render that reads it depends on
    the view (compared by its own hash, `transforms.trace`), not on every field of every
    record: a changed deposit no record description shows re-renders nothing."""
    return trace_view(db, "situations")
