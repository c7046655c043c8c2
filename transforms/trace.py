"""Read traces: which parts of the seed database and of the fact table a render looked at.

A render may depend on any record of the database and on facts it was not planned to carry
(a kind may quote a related rule). Putting the hash of the whole database and fact table in
every render key would be honest but useless: one changed fee would re-render every file.
Instead a render sees the database and the facts through read-only proxies that record what
it reads, and its cache entry stores those reads with a digest of what they returned
(a "verifying trace", as in build systems with dynamic dependencies). A later build reuses
the file only when every recorded read still returns the same thing.

What is recorded, at two levels of the database (tables, then records) and one of the facts:

- `("keys", path)`: the set of keys (or the length) of the database, a table or the facts,
  observed by iterating, `len`, `in`, `keys()`;
- `("item", path)`: one table, one whole record, or one fact, as returned by `[]`/`get`;
- `("view", name)`: a derived view of the whole database (`DB_VIEWS`, e.g. the people in
  the records), computed once per database and compared by its own hash, so choosing a
  customer from the people list does not depend on every field of every record; a derived
  view of the fact table (`FACT_VIEWS`, read as "facts:<name>", e.g. every catalog product's
  name) likewise, so a page naming every product does not depend on every fee.

Records and facts are handed out as they are (plain dicts, `Fact` objects): whatever the
renderer does with one is covered by that record's hash. The proxies hold no data of their
own, so an access path that bypassed them (C code reading a dict's internal storage) would
see an empty table and change the output visibly instead of hiding a dependency; the
round-trip test renders every kind with and without tracing and compares the bytes.
Proxies are read-only: a renderer must not change the shared database.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import fields
from typing import Any, Callable, Iterator

from facts.hashing import content_hash


Obs = tuple  # ("keys", path) | ("item", path) | ("view", name); path is a tuple of keys

# name -> function(db) -> JSON-able value; registered by the modules that define the views
DB_VIEWS: dict[str, Callable[[dict], Any]] = {}


def _registrar(table: dict, what: str):
    """A decorator factory registering derived views in `table` under stable names."""
    def register(name: str):
        def deco(fn: Callable[[dict], Any]) -> Callable[[dict], Any]:
            if name in table and table[name] is not fn:
                raise RuntimeError(f"{what} {name!r} registered twice")
            table[name] = fn
            return fn
        return deco
    return register


# name -> function(facts) -> JSON-able value: derived views of the fact table (the catalog's
# product names, the section topics), read as one observation "facts:<name>" compared by the
# view's own hash, so a page that names every product does not depend on every fee
FACT_VIEWS: dict[str, Callable[[dict], Any]] = {}

db_view = _registrar(DB_VIEWS, "database view")  # decorator: a derived view of the seed database
facts_view = _registrar(FACT_VIEWS, "fact view")  # decorator: a derived view of the fact table


class _Memo:
    """Views and value hashes of one database (and fact table), computed at most once."""

    def __init__(self, db: dict, facts: dict):
        self.db, self.facts = db, facts
        self.views: dict[str, Any] = {}
        self.hashes: dict[Obs, str] = {}

    def view(self, name: str) -> Any:
        if name not in self.views and name.startswith("facts:"):
            if name[6:] not in FACT_VIEWS:
                raise KeyError(f"unknown fact view {name[6:]!r}; known: {', '.join(sorted(FACT_VIEWS))}")
            self.views[name] = FACT_VIEWS[name[6:]](self.facts)
        if name not in self.views:
            if name not in DB_VIEWS:
                raise KeyError(f"unknown database view {name!r}; known: {', '.join(sorted(DB_VIEWS))}")
            self.views[name] = DB_VIEWS[name](self.db)
        return self.views[name]

    def _resolve(self, path: tuple) -> Any:
        root, *rest = path
        cur: Any = self.db if root == "db" else self.facts
        for k in rest:
            cur = cur[k]
        return cur

    def value_hash(self, obs: Obs) -> str:
        h = self.hashes.get(obs)
        if h is None:
            op, arg = obs
            if op == "view":
                h = content_hash(_jsonable(self.view(arg)))
            else:
                try:  # a path that no longer resolves (a record gone, a table now a list)
                    c = self._resolve(arg)
                except (KeyError, IndexError, TypeError):
                    c = _ABSENT
                if c is _ABSENT:
                    h = "absent"
                elif op == "keys":
                    h = content_hash(sorted(map(repr, c)) if isinstance(c, dict) else len(c))
                else:
                    h = content_hash(_jsonable(c))
            self.hashes[obs] = h
        return h

    def digest(self, reads: list[Obs]) -> str:
        return content_hash([[list(o[:1]) + [list(o[1]) if isinstance(o[1], tuple) else o[1]], self.value_hash(o)]
                             for o in sorted(reads, key=repr)])


_ABSENT = object()


def _jsonable(v: Any) -> Any:
    """A JSON value for hashing what a read returned (a value that is not JSON raises: a
    read must never hash as nothing)."""
    if isinstance(v, (dt.date, dt.datetime)):
        return v.isoformat()
    if hasattr(v, "model_dump"):
        return v.model_dump(mode="json")
    if hasattr(v, "__dataclass_fields__"):
        return {f.name: _jsonable(getattr(v, f.name)) for f in fields(v)}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    return v


_MEMOS: dict[int, tuple[dict, dict, _Memo]] = {}
_NO_FACTS: dict = {}


def memo_for(db: dict, facts: dict) -> _Memo:
    """The memo of this (db, facts) pair (kept while they are alive; a few at a time)."""
    key = id(db) ^ (id(facts) << 1)
    hit = _MEMOS.get(key)
    if hit is not None and hit[0] is db and hit[1] is facts:
        return hit[2]
    if len(_MEMOS) >= 4:
        _MEMOS.pop(next(iter(_MEMOS)))
    m = _Memo(db, facts)
    _MEMOS[key] = (db, facts, m)
    return m


class Recorder:
    """Collects the reads of one render."""

    def __init__(self, memo: _Memo):
        self.memo = memo
        self.reads: set[Obs] = set()

    def note(self, op: str, arg) -> None:
        self.reads.add((op, arg))

    def digest(self) -> str:
        return self.memo.digest(sorted(self.reads, key=repr))

    def as_json(self) -> list:
        return [[op, list(arg) if isinstance(arg, tuple) else arg] for op, arg in sorted(self.reads, key=repr)]


def reads_from_json(rows: list) -> list[Obs]:
    return [(op, tuple(arg) if isinstance(arg, list) else arg) for op, arg in rows]


def _read_only(*_a, **_k):
    raise TypeError("the seed database and the fact table are read-only inside a render")


class _TracedDict(dict):
    """A read-only, data-less view of a dict whose reads are recorded. Values at `depth` 0
    (the database's tables) are wrapped again; deeper values are handed out as they are."""

    __slots__ = ("_raw", "_rec", "_path", "_wrap")

    def __init__(self, raw: dict, rec: Recorder, path: tuple, wrap: bool):
        super().__init__()
        self._raw, self._rec, self._path, self._wrap = raw, rec, path, wrap

    def _keys(self) -> None:
        self._rec.note("keys", self._path)

    def _value(self, k):
        v = self._raw[k]
        p = self._path + (k,)
        if self._wrap and isinstance(v, dict):
            return _TracedDict(v, self._rec, p, False)
        if self._wrap and isinstance(v, list):
            return _TracedList(v, self._rec, p)
        self._rec.note("item", p)
        return v

    def __getitem__(self, k):
        if k not in self._raw:
            self._keys()
            raise KeyError(k)
        return self._value(k)

    def get(self, k, default=None):
        if k not in self._raw:
            self._keys()
            return default
        return self._value(k)

    def __contains__(self, k) -> bool:
        self._keys()
        return k in self._raw

    def __iter__(self) -> Iterator:
        self._keys()
        return iter(list(self._raw))

    def __len__(self) -> int:
        self._keys()
        return len(self._raw)

    def __bool__(self) -> bool:
        return len(self) > 0

    def keys(self):
        self._keys()
        return list(self._raw)

    def values(self):
        self._keys()
        return (self._value(k) for k in list(self._raw))

    def items(self):
        self._keys()
        return ((k, self._value(k)) for k in list(self._raw))

    def copy(self) -> dict:
        return dict(self.items())

    def __eq__(self, other) -> bool:
        return self.copy() == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<traced {'/'.join(map(str, self._path))}>"

    __setitem__ = __delitem__ = setdefault = pop = popitem = update = clear = _read_only  # type: ignore[assignment]


class _TracedList(list):
    """A read-only, data-less view of a list table: each element read is recorded."""

    __slots__ = ("_raw", "_rec", "_path")

    def __init__(self, raw: list, rec: Recorder, path: tuple):
        super().__init__()
        self._raw, self._rec, self._path = raw, rec, path

    def _item(self, i: int):
        self._rec.note("item", self._path + (i,))
        return self._raw[i]

    def __len__(self) -> int:
        self._rec.note("keys", self._path)
        return len(self._raw)

    def __bool__(self) -> bool:
        return len(self) > 0

    def __getitem__(self, i):
        n = len(self)
        if isinstance(i, slice):
            return [self._item(j) for j in range(*i.indices(n))]
        return self._item(i if i >= 0 else n + i)

    def __iter__(self) -> Iterator:
        self._rec.note("keys", self._path)
        return (self._item(i) for i in range(len(self._raw)))

    def __contains__(self, x) -> bool:
        return any(v == x for v in self)

    def __reversed__(self) -> Iterator:
        return (self._item(i) for i in range(len(self) - 1, -1, -1))

    def index(self, x, *args) -> int:
        return list(self).index(x, *args)

    def count(self, x) -> int:
        return list(self).count(x)

    def copy(self) -> list:
        return list(self)

    def __eq__(self, other) -> bool:
        return list(self) == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<traced {'/'.join(map(str, self._path))}>"

    __setitem__ = __delitem__ = append = extend = insert = pop = remove = clear = sort = reverse = _read_only  # type: ignore[assignment]


class TracedDB(_TracedDict):
    """The seed database as a render sees it."""

    def __init__(self, raw: dict, rec: Recorder):
        super().__init__(raw, rec, ("db",), True)

    @property
    def recorder(self) -> Recorder:
        return self._rec


def traced(db: dict, facts: dict) -> tuple[TracedDB, _TracedDict, Recorder]:
    """Proxies for one render and the recorder collecting their reads."""
    rec = Recorder(memo_for(db, facts))
    return TracedDB(db, rec), _TracedDict(facts, rec, ("facts",), False), rec


def view(db: Any, name: str) -> Any:
    """A registered view of the database: recorded as one read when `db` is traced,
    computed (once per database) either way."""
    if isinstance(db, TracedDB):
        db.recorder.note("view", name)
        return db.recorder.memo.view(name)
    return memo_for(db, _NO_FACTS).view(name)


def fact_view(facts: Any, name: str) -> Any:
    """A registered view of the fact table (`facts_view`): recorded as one read when `facts`
    is a render's traced fact table, computed either way."""
    if isinstance(facts, _TracedDict) and facts._path == ("facts",):
        facts._rec.note("view", "facts:" + name)
        return facts._rec.memo.view("facts:" + name)
    return FACT_VIEWS[name](facts)
