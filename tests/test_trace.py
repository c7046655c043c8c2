"""Read traces: renders see the database and facts through recording, read-only proxies, and
produce exactly the bytes they produce without them."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tests.kinds_util import make_spec
from transforms import common, registry  # noqa: F401  (common registers the database views)
from transforms.trace import memo_for, traced, view


def test_reads_are_recorded_at_table_record_and_view_level():
    db = {"customers": {"C1": {"name": "Ann Lee", "email": "ann@x.example", "fee": 5},
                        "C2": {"name": "Bo Diaz", "email": "bo@x.example", "fee": 7}},
          "log": [{"id": 1}, {"id": 2}, {"id": 3}]}
    tdb, tfacts, rec = traced(db, {"f1": "fact one"})
    assert tdb["customers"]["C1"]["fee"] == 5
    assert [r["id"] for r in tdb["log"][:2]] == [1, 2]
    assert sorted(tdb) == ["customers", "log"]
    assert tfacts["f1"] == "fact one"
    assert view(tdb, "people")[0].name == "Ann Lee"
    assert rec.reads == {("item", ("db", "customers", "C1")), ("item", ("db", "log", 0)), ("item", ("db", "log", 1)),
                         ("keys", ("db", "log")), ("keys", ("db",)), ("item", ("facts", "f1")),
                         ("view", "people")}


def test_digest_changes_only_with_what_was_read():
    db = {"customers": {"C1": {"name": "Ann Lee", "fee": 5}, "C2": {"name": "Bo Diaz", "fee": 7}}}
    tdb, _, rec = traced(db, {})
    tdb["customers"]["C1"]
    reads = sorted(rec.reads, key=repr)
    d0 = rec.digest()
    db2 = {"customers": {"C1": {"name": "Ann Lee", "fee": 5}, "C2": {"name": "Bo Diaz", "fee": 9}}}
    assert memo_for(db2, {}).digest(reads) == d0
    db3 = {"customers": {"C1": {"name": "Ann Lee", "fee": 6}, "C2": {"name": "Bo Diaz", "fee": 7}}}
    assert memo_for(db3, {}).digest(reads) != d0


def test_proxies_are_read_only_and_hide_nothing_from_plain_reads():
    db = {"t": {"a": {"x": 1}}, "l": [1, 2]}
    tdb, _, _ = traced(db, {})
    with pytest.raises(TypeError):
        tdb["t"]["b"] = {}
    with pytest.raises(TypeError):
        tdb["l"].append(3)
    assert dict(tdb["t"]) == {"a": {"x": 1}} and list(tdb["l"]) == [1, 2]
    assert json.loads(json.dumps({k: v for k, v in tdb["t"].items()})) == {"a": {"x": 1}}
    assert tdb["t"] == {"a": {"x": 1}} and "a" in tdb["t"] and len(tdb["l"]) == 2


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(registry.kinds()))
def test_every_kind_renders_the_same_bytes_through_the_proxies(kind, render_ctx, hand_facts, tmp_path):
    """A render that read the database or the facts behind the proxies' back (C code reading a
    dict's own storage) would see empty tables and differ here. Both renders file their
    hearing in one extraction cache (keyed by the file's bytes): a recording whose second
    render wrote the same bytes as the first is not decoded twice; one that differs is."""
    from transforms.render import render_unit
    from transforms.pool import Shared

    spec = make_spec(kind, hand_facts)
    t = registry.get(kind)
    plain = tmp_path / f"plain{t.ext}"
    ctx = replace(render_ctx, workdir=tmp_path, extraction_cache=tmp_path / "extractions")
    t.render(spec, ctx, plain)
    file, reads, _digest, _notes = render_unit(Shared(ctx), spec, "0" * 64, str(tmp_path / "cache"))
    assert Path(file).read_bytes() == plain.read_bytes()
    assert any(r[0] == "item" and r[1][0] == "facts" for r in reads)
