"""The API kit and the domain contract: typed catalogs, errors, determinism, OpenAPI 3.1,
packs with and without code."""
from __future__ import annotations

import copy
import json
import textwrap

import pytest
from openapi_spec_validator import validate

from domains import get_pack, load_pack
from domains.apikit import ApiContext, ApiError, Args, Call, Catalog, Result, db_hash
from domains.contract import NoDatabase, StaticDatabase
from facts.errors import FactforgeError


class _A(Args):
    x: int


class _R(Result):
    y: int


def test_catalog_registration_is_strict():
    cat = Catalog("t", title="T")

    @cat.read("/things/{x}", resource="x")
    def get_thing(ctx: ApiContext, db: dict, a: _A) -> _R:
        """Get a thing."""
        return {"y": a.x}

    with pytest.raises(ValueError, match="registered twice"):
        @cat.read("/other/{x}")
        def get_thing(ctx: ApiContext, db: dict, a: _A) -> _R:  # noqa: F811
            """Again."""
            return {"y": 1}
    with pytest.raises(ValueError, match="route GET /things/{x} is registered twice"):
        @cat.read("/things/{x}")
        def get_thing2(ctx: ApiContext, db: dict, a: _A) -> _R:
            """Same route."""
            return {"y": 1}
    with pytest.raises(ValueError, match="docstring"):
        @cat.write("/w")
        def nodoc(ctx: ApiContext, db: dict, a: _A) -> _R:
            return {"y": 1}
    with pytest.raises(ValueError, match="path parameter 'z'"):
        @cat.read("/z/{z}")
        def bad_path(ctx: ApiContext, db: dict, a: _A) -> _R:
            """Bad."""
            return {"y": 1}
    with pytest.raises(TypeError, match="Args model"):
        @cat.read("/q")
        def untyped(ctx, db, a) -> _R:
            """Untyped."""
            return {"y": 1}
    assert [o.name for o in cat.operations()] == ["get_thing"]


def test_calls_validate_and_errors_are_enveloped(mock_pack):
    api = mock_pack.api()
    db = mock_pack.database(0)
    with pytest.raises(ApiError) as e:
        api.call(db, "get_rental", {"rental_id": "PW2000", "extra": 1})
    assert e.value.code == "invalid_argument" and e.value.status == 422
    body = e.value.envelope()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}
    with pytest.raises(ApiError) as e:
        api.call(db, "get_rental", {"rental_id": "NOPE"})
    assert e.value.code == "not_found" and e.value.details["id"] == "NOPE"
    with pytest.raises(ApiError) as e:
        api.call(db, "no_such_op", {})
    assert e.value.code == "unknown_operation" and "get_rental" in e.value.details["available"]
    with pytest.raises(ApiError, match="at most 2 decimals"):
        api.call(db, "start_rental", {"customer_id": "CU1000", "bikes": 1, "deposit": 50.001})


def test_failed_writes_change_nothing_and_replay_is_deterministic(mock_pack):
    api = mock_pack.api()
    db = mock_pack.database(0)
    h0 = db_hash(db)
    with pytest.raises(ApiError):
        api.call(db, "waive_late_fee", {"rental_id": "PW2001", "amount": 500})
    assert db_hash(db) == h0
    calls = [Call(name="start_rental", arguments={"customer_id": "CU1000", "bikes": 1, "deposit": 50}),
             Call(name="get_rental", arguments={"rental_id": "NOPE"}),
             Call(name="waive_late_fee", arguments={"rental_id": "PW2001", "amount": 19.2})]
    a, b = copy.deepcopy(db), copy.deepcopy(db)
    ra = api.replay(a, calls)
    assert [r.model_dump() for r in api.replay(b, calls)] == [r.model_dump() for r in ra]
    assert [r.ok for r in ra] == [True, False, True] and ra[1].error.code == "not_found"
    assert db_hash(a) == db_hash(b) != h0
    assert ra[0].result["id"] == "PW2006" and ra[0].kind == "write"


def test_api_does_not_enforce_the_policy():
    pack = get_pack("airline")
    api, db = pack.api(), pack.database(0)
    r = next(r for r in db["reservations"].values() if r["cancellation"] is None and r["cabin"] == "Lite"
             and not r["insurance"])
    card = next(k for k, pm in db["users"][r["user_id"]]["payment_methods"].items() if pm["type"] == "credit_card")
    api.call(db, "add_passenger", {"reservation_id": r["reservation_id"], "passenger": {
        "first_name": "Extra", "last_name": "Person", "date_of_birth": "1990-01-01"}, "fare": 0,
        "payment_method_id": card})
    api.call(db, "add_insurance", {"reservation_id": r["reservation_id"], "fee": 0, "payment_method_id": card})
    problems = pack.check_database(db)
    assert any("passenger was added after booking" in p for p in problems)
    assert any("TripGuard was added after booking" in p for p in problems)


@pytest.mark.parametrize("name", ["_mock", "airline"])
def test_openapi_documents_validate(name):
    api = get_pack(name).api()
    doc = api.openapi(server_url="http://127.0.0.1:8000")
    validate(doc)
    assert doc["openapi"] == "3.1.0"
    ops = {op["operationId"]: (method, path, op) for path, item in doc["paths"].items() for method, op in item.items()}
    assert set(ops) == {o.name for o in api.operations()}
    for o in api.operations():
        method, path, op = ops[o.name]
        assert (method.upper(), path) == (o.method, o.path) and op["x-factforge-kind"] == o.kind
        assert op["responses"]["404"]["content"]["application/json"]["schema"]["$ref"].endswith("ErrorEnvelope")
    assert json.dumps(doc, sort_keys=True) == json.dumps(api.openapi(server_url="http://127.0.0.1:8000"),
                                                         sort_keys=True)


def test_airline_catalog_depth():
    api = get_pack("airline").api()
    reads = {o.name for o in api.operations() if o.kind == "read"}
    writes = {o.name for o in api.operations() if o.kind == "write"}
    assert {"get_user", "get_reservation", "search_flights", "search_connections", "get_flight_status"} <= reads
    assert {"book_reservation", "cancel_reservation", "change_flights", "add_bags", "correct_passenger_name",
            "issue_certificate", "issue_voucher", "transfer_to_human"} <= writes
    assert all(o.method == ("GET" if o.kind == "read" else "POST") for o in api.operations())


def _pack(tmp_path, name: str, files: dict[str, str]):
    d = tmp_path / name
    d.mkdir()
    (d / "domain.toml").write_text(textwrap.dedent(f"""\
        [domain]
        name = "{name}"
        business = "test"
        now = "2026-01-05T09:00:00+00:00"
        [brand]
        company = "Test Co"
        email_domain = "test.example"
        """), encoding="utf-8")
    (d / "policy.md").write_text("# P\n\n- The fee is $5.\n", encoding="utf-8")
    for rel, text in files.items():
        (d / rel).write_text(textwrap.dedent(text), encoding="utf-8")
    return load_pack(d)


@pytest.mark.slow
def test_pack_code_contract(tmp_path):
    no_domain = _pack(tmp_path, "nodomain", {"domain.py": "def generate(pack, seed):\n    return {}\n"})
    with pytest.raises(FactforgeError, match="must define DOMAIN") as e:
        no_domain.database(0)
    assert e.value.file.endswith("domain.py")
    static = _pack(tmp_path, "static", {"db.json": '{"users": {"u1": {"id": "u1"}}}'})
    assert isinstance(static.code, StaticDatabase) and static.database(0) == {"users": {"u1": {"id": "u1"}}}
    assert static.api() is None
    empty = _pack(tmp_path, "empty", {})
    assert isinstance(empty.code, NoDatabase) and empty.database(0) == {}
    broken = _pack(tmp_path, "broken", {"db.json": '{"a": '})
    with pytest.raises(FactforgeError, match="invalid JSON"):
        broken.database(0)
    ext = _pack(tmp_path, "ext", {
        "domain.py": """\
            from domains.contract import DomainCode
            class D(DomainCode):
                def generate(self, pack, seed, values=None, price_scale=1.0):
                    from .helpers import rows
                    return {"rows": rows(seed)}
                def api(self, pack, values=None):
                    from .api import CATALOG
                    return CATALOG.bind(pack, values)
            DOMAIN = D()
            """,
        "helpers.py": "def rows(seed):\n    return {str(i): i for i in range(seed + 2)}\n",
        "api.py": """\
            from domains.apikit import ApiContext, Args, Catalog, Result
            CATALOG = Catalog("ext", title="Ext")
            class A(Args):
                key: str
            class R(Result):
                value: int
            @CATALOG.read("/rows/{key}")
            def get_row(ctx: ApiContext, db: dict, a: A) -> R:
                \"\"\"A row.\"\"\"
                return {"value": db["rows"][a.key]}
            """})
    db = ext.database(1)
    assert db == {"rows": {"0": 0, "1": 1, "2": 2}}
    assert ext.api().call(db, "get_row", {"key": "2"}) == {"value": 2}


def test_a_policy_value_changes_in_the_policy_and_values_only(tmp_path):
    """A value-fact link names its sentence without the number, so a new late fee is written
    in policy.md and in VALUES, nowhere else, and the pack still resolves, seeds and checks."""
    import shutil

    from domains import BUILTIN_DIR
    from domains.value_feeds import resolve_value_facts

    d = tmp_path / "bikes"
    shutil.copytree(BUILTIN_DIR / "_mock", d, ignore=shutil.ignore_patterns("__pycache__", "variants", "tasks",
                                                                           "deployments"))
    toml = (d / "domain.toml").read_text(encoding="utf-8")
    (d / "domain.toml").write_text(toml.replace('name = "_mock"', 'name = "bikes"'), encoding="utf-8")
    policy = (d / "policy.md").read_text(encoding="utf-8")
    assert policy.count("$12") == 1
    (d / "policy.md").write_text(policy.replace("$12", "$14"), encoding="utf-8")
    rules = (d / "rules.py").read_text(encoding="utf-8")
    assert rules.count('"late_fee_per_hour": 12') == 1 and "$12" not in rules
    (d / "rules.py").write_text(rules.replace('"late_fee_per_hour": 12', '"late_fee_per_hour": 14'), encoding="utf-8")
    pack = load_pack(d)
    feed = resolve_value_facts(pack, pack.facts)["late_fee_per_hour"]
    fact = pack.facts.by_id()[feed.fact_id]
    assert feed.factor == 1.0 and "$14" in fact.statement
    db = pack.database(0)
    assert pack.check_database(db) == []
    late = [(r["late_hours"], db["customers"][r["customer_id"]]["pass_holder"], r["late_fee"])
            for r in db["rentals"].values() if r["late_hours"]]
    assert late and all(fee == round(h * 14 * (0.8 if holder else 1), 2) for h, holder, fee in late)
