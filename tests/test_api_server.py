"""The API server over real HTTP: each of the nine defect kinds reproduced against a running
server on the virtual clock (same seed, same behaviour), activation rules, the error
envelope and limits, per-trial reset, the call log and its replay, Unix sockets, and the
shipped deployments of every built-in domain."""
from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from domains import get_pack
from domains.apikit import db_hash
from domains.variants import resolve
from facts.errors import FactforgeError
from outputs.api.deployment import KINDS, builtin_deployments, load_deployment, parse_deployment
from outputs.api.server import ApiServer
from outputs.api.service import replay_log

DOMAINS = ["_mock", "airline", "retail", "telecom", "banking"]
_WORLDS: dict = {}


def _world(key: str):
    if key not in _WORLDS:
        w = resolve(key)
        _WORLDS[key] = (w, w.api(), w.database(0))
    return _WORLDS[key]


def _dep(world: str, body: str, dep_id: str = "t-dep"):
    _, api, _ = _world(world)
    return parse_deployment(f'schema_version = "1.0"\nid = "{dep_id}"\n{body}', Path(f"{dep_id}.toml"), api)


TRANSCRIPT: list = []   # every response the tests' clients receive (see test_same_seed_same_behaviour_per_kind)


def _record(r: httpx.Response) -> None:
    r.read()
    TRANSCRIPT.append((r.request.method, r.request.url.path, r.request.url.query, r.status_code,
                       {k: r.headers.get(k) for k in ("retry-after", "location", "link")}, r.text))


@contextmanager
def serve(world: str, body: str = "", *, task_id: str = "t-task", **kw):
    from outputs.api.app import ApiState

    _, api, db = _world(world)
    state = ApiState(api, db, _dep(world, body) if body else None, task_id=task_id, **kw)
    with ApiServer(state) as srv, httpx.Client(base_url=srv.url, timeout=30,
                                               event_hooks={"response": [_record]}) as c:
        yield srv, c
        TRANSCRIPT.append(("log", srv.state.log.model_dump(mode="json")))


def wait(c: httpx.Client, s: float) -> float:
    r = c.post("/_clock/wait", json={"seconds": s})
    assert r.status_code == 200, r.text
    return r.json()["now_s"]


def _kinds(srv) -> list[list[str]]:
    return [e.defects for e in srv.state.log.entries]


# --------------------------------------------------------------------------- the nine kinds

def test_response_field_rename():
    body = """[[defects]]
kind = "response_field_rename"
operations = ["get_rental"]
params = { from = "deposit", to = "security_deposit", record = "Rental" }"""
    with serve("_mock", body) as (srv, c):
        r = c.get("/rentals/PW2000").json()
        assert r["security_deposit"] == 50 and "deposit" not in r
        assert "deposit" in c.get("/customers/CU1000/rentals").json()["rentals"][0]  # not a target
        assert _kinds(srv) == [["response_field_rename"], []]


def test_response_value_map():
    body = """[[defects]]
kind = "response_value_map"
operations = ["get_customer"]
params = { field = "pass_holder", map = { "true" = "yes", "false" = "no" } }"""
    with serve("_mock", body) as (srv, c):
        assert c.get("/customers/CU1000").json()["pass_holder"] == "no"
        assert c.get("/customers/CU1001").json()["pass_holder"] == "yes"


def test_response_amount_sign():
    body = """[[defects]]
kind = "response_amount_sign"
operations = ["get_rental", "list_customer_rentals"]
params = { record = "Rental", fields = ["late_fee"] }"""
    with serve("_mock", body) as (srv, c):
        assert c.get("/rentals/PW2001").json()["late_fee"] == -19.2
        assert [x["late_fee"] for x in c.get("/customers/CU1001/rentals").json()["rentals"]] == [-19.2, -19.2]
        assert c.get("/rentals/PW2000").json()["late_fee"] == 0  # zero has no sign
        assert srv.state.db["rentals"]["PW2001"]["late_fee"] == 19.2  # the data is right; the answer is not


def test_response_date_to_datetime():
    body = """[[defects]]
kind = "response_date_to_datetime"
operations = ["get_user"]"""
    _, _, db = _world("airline")
    uid, user = next(iter(db["users"].items()))
    with serve("airline", body) as (srv, c):
        got = c.get(f"/users/{uid}").json()
        assert got["date_of_birth"] == user["date_of_birth"] + "T00:00:00Z"
        assert all(p["date_of_birth"].endswith("T00:00:00Z") for p in got["saved_passengers"])


def _pages(c, path, params=None, link=False):
    """Follow a listing; returns (pages, statuses)."""
    pages, statuses = [], []
    r = c.get(path, params=params or {})
    while True:
        statuses.append(r.status_code)
        if r.status_code != 200:
            return pages, statuses
        pages.append(r.json())
        if link:
            nxt = r.links.get("next", {}).get("url")
            if not nxt:
                return pages, statuses
            r = c.get(nxt)
        else:
            cur = r.json().get("next_cursor")
            if not cur:
                return pages, statuses
            r = c.get(path, params={**(params or {}), "cursor": cur})


def test_pagination_cursor_reverse_and_lost_cursor():
    body = """[[defects]]
kind = "pagination"
operations = ["list_customer_rentals"]
params = { page_size = 1, order = "reverse", sort_by = ["id"], lost_cursor_at_page = 2 }"""
    with serve("_mock", body) as (srv, c):
        pages, statuses = _pages(c, "/customers/CU1000/rentals")
        assert statuses == [200, 410]          # the cursor to page 2 is lost, once
        assert [x["id"] for x in pages[0]["rentals"]] == ["PW2003"]  # reverse order
        assert c.get("/customers/CU1000/rentals", params={"cursor": "nonsense"}).json()["error"]["code"] == "cursor_expired"
        pages, statuses = _pages(c, "/customers/CU1000/rentals")  # the restart goes through
        assert statuses == [200, 200]
        assert [x["id"] for p in pages for x in p["rentals"]] == ["PW2003", "PW2000"]
        assert pages[-1]["next_cursor"] is None


def test_pagination_truncated_with_link_header_and_limit_before_sort():
    body = """[[defects]]
kind = "pagination"
operations = ["list_products"]
params = { page_size = 5, truncate = true, limit_before_sort = true, sort_by = ["product_id"] }"""
    _, api, db = _world("retail")
    clean = [p["product_id"] for p in api.call(db, "list_products", {})["products"]]
    with serve("retail", body) as (srv, c):
        first = c.get("/products")
        assert "next_cursor" not in first.json() and len(first.json()["products"]) == 5
        assert 'rel="next"' in first.headers["link"]   # the only sign there is more
        pages, statuses = _pages(c, "/products", link=True)
        got = [p["product_id"] for page in pages for p in page["products"]]
        assert sorted(got) == sorted(clean) and len(got) == len(clean)
        assert all(page["products"] == sorted(page["products"], key=lambda x: x["product_id"]) for page in pages)
        assert got != sorted(got)              # each page is sorted, the whole is not: limit before sort


def test_rate_limit_retry_after_understates_the_real_delay():
    body = """[[defects]]
kind = "rate_limit"
operations = ["get_rental"]
activation = { from_ordinal = 3 }
params = { retry_after_s = 1, min_delay_s = 5, max_delay_s = 9 }"""
    with serve("_mock", body) as (srv, c):
        assert [c.get("/rentals/PW2000").status_code for _ in range(2)] == [200, 200]
        r = c.get("/rentals/PW2000")
        assert r.status_code == 429 and r.headers["retry-after"] == "1"
        assert r.json()["error"]["code"] == "rate_limited"
        assert c.get("/customers/CU1000").status_code == 200  # other operations are not throttled
        wait(c, 1)
        assert c.get("/rentals/PW2000").status_code == 429   # the advertised wait was not enough
        t, status = 1.0, 429
        while status == 429:
            t = wait(c, 0.5)
            status = c.get("/rentals/PW2000").status_code
        assert 5 <= t <= 9.5
        assert c.get("/rentals/PW2000").status_code == 200   # one window per trial
        delay_seen = t
    with serve("_mock", body) as (srv, c):                 # same seed, same delay
        for _ in range(3):
            c.get("/rentals/PW2000")
        t, status = 0.0, 429
        while status == 429:
            t = wait(c, 0.5)
            status = c.get("/rentals/PW2000").status_code
        assert t == delay_seen


def test_async_completion_202_status_url():
    body = """[[defects]]
kind = "async_completion"
operations = ["waive_late_fee"]
params = { min_delay_s = 1.5, max_delay_s = 5 }"""
    with serve("_mock", body) as (srv, c):
        r = c.post("/rentals/PW2001/waive-late-fee", json={"amount": 5})
        assert r.status_code == 202 and r.json()["status"] == "pending"
        url = r.headers["location"]
        assert url == r.json()["status_url"] and int(r.headers["retry-after"]) >= 1
        assert c.get(url).status_code == 202
        assert c.get("/rentals/PW2001").json()["waived"] == 0     # not done yet
        assert c.post("/rentals/PW2001/waive-late-fee", json={"amount": "x"}).status_code == 422  # validated at once
        t = 0.0
        while (s := c.get(url)).status_code == 202:
            t = wait(c, 0.5)
        assert 1.5 <= t <= 5.5
        assert s.status_code == 200 and s.json()["waived"] == 5     # the operation's own answer
        assert c.get("/rentals/PW2001").json()["waived"] == 5
        log = srv.state.log.entries
        assert [(e.status, e.via, e.committed) for e in log if e.operation == "waive_late_fee"] == \
            [(202, "request", False), (422, "request", False), (200, "job", True)]
        assert c.get("/_jobs/job_nope").status_code == 404


def test_async_job_settles_at_the_end_of_a_conversation():
    body = """[[defects]]
kind = "async_completion"
operations = ["waive_late_fee"]
params = { min_delay_s = 2, max_delay_s = 2 }"""
    with serve("_mock", body) as (srv, c):
        assert c.post("/rentals/PW2001/waive-late-fee", json={"amount": 5}).status_code == 202
        assert srv.state.log.replay_calls() == []
        srv.state.settle()
        assert [x.name for x in srv.state.log.replay_calls()] == ["waive_late_fee"]


def test_post_commit_timeout_and_idempotency_key():
    body = """[[defects]]
kind = "post_commit_timeout"
operations = ["start_rental"]
activation = { ordinals = [1] }"""
    args = {"customer_id": "CU1002", "bikes": 1, "deposit": 50}
    with serve("_mock", body) as (srv, c):
        r = c.post("/rentals", json=args, headers={"Idempotency-Key": "k-1"})
        assert r.status_code == 504 and r.json()["error"]["code"] == "gateway_timeout"
        mine = [x for x in c.get("/customers/CU1002/rentals").json()["rentals"] if x.get("status") == "active"]
        assert len(mine) == 1                                  # it committed anyway
        r2 = c.post("/rentals", json=args, headers={"Idempotency-Key": "k-1"})
        assert r2.status_code == 200 and r2.json()["id"] == mine[0]["id"]
        assert len(srv.state.db["rentals"]) == 7               # never written twice
        assert c.post("/rentals", json={**args, "bikes": 2}, headers={"Idempotency-Key": "k-1"}).status_code == 409
        assert c.post("/rentals", json=args).status_code == 200  # no key: a second rental (the hazard)
        assert len(srv.state.db["rentals"]) == 8
        assert [e.committed for e in srv.state.log.entries if e.operation == "start_rental"] == [True, False, False, True]


def test_projection_lag_serves_stale_reads():
    body = """[[defects]]
kind = "projection_lag"
operations = ["get_rental"]
params = { min_delay_s = 3, max_delay_s = 3 }"""
    with serve("_mock", body) as (srv, c):
        assert c.post("/rentals/PW2001/waive-late-fee", json={"amount": 5}).json()["waived"] == 5
        assert c.get("/rentals/PW2001").json()["waived"] == 0       # stale
        assert c.get("/customers/CU1001/rentals").json()["rentals"][0]["waived"] == 5  # not a lagging read
        wait(c, 2.9)
        assert c.get("/rentals/PW2001").json()["waived"] == 0
        wait(c, 0.2)
        assert c.get("/rentals/PW2001").json()["waived"] == 5
        assert _kinds(srv)[1] == ["projection_lag"] and _kinds(srv)[-1] == []


NINE = [test_response_field_rename, test_response_value_map, test_response_amount_sign,
        test_response_date_to_datetime, test_pagination_cursor_reverse_and_lost_cursor,
        test_pagination_truncated_with_link_header_and_limit_before_sort,
        test_rate_limit_retry_after_understates_the_real_delay, test_async_completion_202_status_url,
        test_post_commit_timeout_and_idempotency_key, test_projection_lag_serves_stale_reads]


@pytest.mark.parametrize("scenario", NINE, ids=lambda f: f.__name__.removeprefix("test_"))
def test_same_seed_same_behaviour_per_kind(scenario):
    """Each defect scenario run twice on fresh servers: every response (status, Retry-After,
    Location, Link, body) and the call log are identical."""
    runs = []
    for _ in range(2):
        TRANSCRIPT.clear()
        scenario()
        runs.append(list(TRANSCRIPT))
    assert runs[0] and runs[0] == runs[1]


# --------------------------------------------------------------------------- activation

def test_activation_by_task_resource_and_per_resource_ordinal():
    body = """[[defects]]
kind = "response_value_map"
operations = ["get_customer"]
activation = { tasks = ["t-task"], resources = ["CU1001"], ordinals = [2], per_resource = true }
params = { field = "pass_holder", map = { "true" = "yes", "false" = "no" } }"""
    with serve("_mock", body) as (srv, c):
        got = [c.get(f"/customers/{cid}").json()["pass_holder"] for cid in ("CU1001", "CU1000", "CU1000", "CU1001", "CU1001")]
        assert got == [True, False, False, "yes", True]   # only the second call about CU1001
    with serve("_mock", body, task_id="other-task") as (srv, c):
        assert all(c.get("/customers/CU1001").json()["pass_holder"] is True for _ in range(3))


def test_dev_mode_exposure_rate_is_seeded():
    body = """[[defects]]
kind = "response_value_map"
operations = ["get_customer"]
activation = { exposure = 0.3, ordinals = [1] }
params = { field = "pass_holder", map = { "true" = "yes" } }"""

    def run(seed):
        with serve("_mock", body, mode="dev", seed=seed) as (srv, c):
            return [c.get("/customers/CU1001").json()["pass_holder"] == "yes" for _ in range(60)]

    a, b, other = run(7), run(7), run(8)
    assert a == b and a != other
    assert 8 <= sum(a) <= 30     # about 30% of 60 calls, ordinals ignored in development runs


def test_same_seed_same_behaviour_and_trials_differ():
    dep = load_deployment(get_pack("_mock").path / "deployments" / "flaky-shop.toml")[0]
    _, api, db = _world("_mock")

    def script(c):
        out = []
        for _ in range(4):
            r = c.get("/rentals/PW2000")
            out.append((r.status_code, r.text))
        out.append(wait(c, 3))
        r = c.post("/rentals/PW2004/waive-late-fee", json={"amount": 3})
        out.append((r.status_code, r.text))
        while (s := c.get(r.headers["location"])).status_code == 202:
            out.append(wait(c, 0.25))
        out.append((s.status_code, s.text))
        return out

    from outputs.api.app import ApiState
    runs = []
    for trial in (0, 0, 1):
        state = ApiState(api, db, dep, task_id="_mock-flaky", trial=trial)
        with ApiServer(state) as srv, httpx.Client(base_url=srv.url) as c:
            runs.append((script(c), srv.state.log.model_dump()))
    assert runs[0] == runs[1]
    assert runs[0][0] != runs[2][0]            # the delays hash the trial too
    state = ApiState(api, db, dep, task_id="_mock-flaky", trial=5)
    with ApiServer(state) as srv, httpx.Client(base_url=srv.url) as c:
        script(c)
        srv.state.reset(0)                     # a reset trial behaves like a fresh server
        assert script(c) == runs[0][0]
        assert srv.state.log.model_dump() == runs[0][1]


# --------------------------------------------------------------------------- the server

def test_error_envelope_and_limits(monkeypatch):
    with serve("_mock") as (srv, c):
        def err(r, status, code):
            assert r.status_code == status, r.text
            assert set(r.json()) == {"error"} and r.json()["error"]["code"] == code
            assert set(r.json()["error"]) == {"code", "message", "details"}
        err(c.get("/nowhere"), 404, "not_found")
        err(c.delete("/customers/CU1000"), 405, "method_not_allowed")
        err(c.get("/customers/NOPE"), 404, "not_found")
        err(c.post("/rentals", content=b"{nope", headers={"content-type": "application/json"}), 400, "bad_request")
        err(c.post("/rentals", json=[1]), 422, "invalid_argument")
        err(c.post("/rentals", json={"customer_id": "CU1000", "bikes": "many", "deposit": 50}), 422, "invalid_argument")
        err(c.get("/customers/CU1000", params={"extra": "1"}), 422, "invalid_argument")
        err(c.post("/rentals", content=b" " * ((1 << 20) + 1)), 413, "payload_too_large")
        err(c.post("/rentals/PW2001/waive-late-fee", json={"rental_id": "PW2000", "amount": 1}), 422, "invalid_argument")
        err(c.post("/_clock/wait", json={"seconds": -1}), 422, "invalid_argument")
        err(c.post("/_admin/reset", json={}), 404, "not_found")      # no admin token: no admin routes
        import outputs.api.app as app_mod
        monkeypatch.setattr(app_mod, "RESPONSE_LIMIT", 200)
        err(c.get("/customers/CU1000/rentals"), 500, "response_too_large")
        doc = c.get("/openapi.json").json()
        assert doc["openapi"].startswith("3.1") and doc["servers"] == [{"url": srv.url}]
        assert {k: v for k, v in doc.items() if k != "servers"} == srv.state.api.openapi()


def test_a_body_nested_too_deep_is_the_400_envelope_without_a_traceback(caplog):
    from outputs.api.app import MAX_DEPTH

    def nested(depth: int) -> bytes:
        return b'{"a":' * depth + b"1" + b"}" * depth
    with caplog.at_level("DEBUG"), serve("_mock") as (srv, c):
        for body in (b"[" * 100_000 + b"]" * 100_000, nested(100_000), nested(900), nested(MAX_DEPTH + 1)):
            r = c.post("/rentals", content=body, headers={"content-type": "application/json"})
            assert r.status_code == 400, r.text[:200]
            assert r.json() == {"error": {"code": "bad_request", "message": f"the body is nested deeper than "
                                          f"{MAX_DEPTH} levels", "details": {"max_depth": MAX_DEPTH}}}
        r = c.post("/_clock/wait", content=nested(100_000))
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request"
        r = c.post("/rentals", content=nested(MAX_DEPTH), headers={"content-type": "application/json"})
        assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_argument"   # deep enough, then validated
        assert c.get("/_health").json()["status"] == "ok"
        assert [e.error for e in srv.state.log.entries] == ["invalid_argument"]    # only the validated call
    assert not [rec for rec in caplog.records if rec.exc_info or "Traceback" in rec.getMessage()]


def test_log_replays_to_the_served_database():
    dep = load_deployment(get_pack("_mock").path / "deployments" / "flaky-shop.toml")[0]
    from outputs.api.app import ApiState
    _, api, db = _world("_mock")
    state = ApiState(api, db, dep, task_id="_mock-flaky")
    with ApiServer(state) as srv, httpx.Client(base_url=srv.url) as c:
        assert c.post("/rentals", json={"customer_id": "CU1000", "bikes": 1, "deposit": 50},
                      headers={"Idempotency-Key": "a"}).status_code == 504
        assert c.post("/rentals", json={"customer_id": "CU1000", "bikes": 1, "deposit": 50},
                      headers={"Idempotency-Key": "a"}).status_code == 200
        assert c.post("/rentals/PW2001/waive-late-fee", json={"amount": 4}).status_code == 202
        assert c.post("/handoffs", json={"customer_id": "CU1000", "reason": "customer_request",
                                         "summary": "wants a human"}).status_code == 200
        srv.state.settle()
        log = srv.state.log
        assert [x.name for x in log.replay_calls()] == ["start_rental", "transfer_to_human", "waive_late_fee"]
        assert db_hash(replay_log(api, db, log)) == db_hash(srv.state.db)
        assert log.defects_hit() == {"async_completion": 2, "post_commit_timeout": 1}


def test_unix_socket_sdk_and_virtual_wait(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("factforge_sdk", Path("outputs/packs/kitfiles/factforge_sdk.py").resolve())
    sdk = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sdk)
    from outputs.api.app import ApiState
    _, api, db = _world("_mock")
    with ApiServer(ApiState(api, db), uds=tmp_path / "api.sock") as srv:
        assert srv.url.startswith("http+unix://")
        client = sdk.ApiClient(srv.url, api.openapi())
        assert client.call("get_customer", {"customer_id": "CU1000"})["name"] == "Jonah Pike"
        with pytest.raises(sdk.ApiError) as e:
            client.call("get_customer", {"customer_id": "NOPE"})
        assert e.value.status == 404 and e.value.code == "not_found"
        client.wait(42)
        assert srv.state.clock.now() == 42
    assert not (tmp_path / "api.sock").exists()


def test_admin_routes_need_the_token():
    from outputs.api.app import ApiState
    _, api, db = _world("_mock")
    with ApiServer(ApiState(api, db, admin_token="s3cret")) as srv, httpx.Client(base_url=srv.url) as c:
        c.post("/rentals", json={"customer_id": "CU1000", "bikes": 1, "deposit": 50})
        assert c.get("/_admin/log").status_code == 404
        h = {"Authorization": "Bearer s3cret"}
        assert len(c.get("/_admin/log", headers=h).json()["entries"]) == 1
        assert c.post("/_admin/reset", json={"trial": 3}, headers=h).json() == {"trial": 3}
        assert c.get("/_admin/log", headers=h).json()["entries"] == [] and len(srv.state.db["rentals"]) == 6


# --------------------------------------------------------------------------- deployments

def test_deployment_errors_name_file_line_and_problem(tmp_path):
    _, api, _ = _world("_mock")
    src = (get_pack("_mock").path / "deployments" / "flaky-shop.toml").read_text()
    cases = [
        ("min_delay_s = 2, max_delay_s = 4", "min_delay_s = 5, max_delay_s = 4", "max_delay_s is below min_delay_s"),
        ('kind = "post_commit_timeout"', 'kind = "post_commit_tmeout"', "unknown defect kind 'post_commit_tmeout'"),
        ('operations = ["start_rental"]', 'operations = ["start_rentals"]', "unknown operation 'start_rentals'"),
        ("activation = { ordinals = [1] }", "activation = { ordinals = [0] }", "greater than or equal to 1"),
        ('operations = ["waive_late_fee"]', 'operations = ["get_rental"]', "applies to write operations"),
        ("params = { min_delay_s = 2, max_delay_s = 6 }", "params = { min_delay_s = 2, max_delay_s = 6, x = 1 }", "Extra inputs"),
    ]
    for old, new, problem in cases:
        assert old in src
        p = tmp_path / "flaky-shop.toml"
        p.write_text(src.replace(old, new))
        with pytest.raises(FactforgeError) as e:
            load_deployment(p, api)
        assert problem in e.value.problem and e.value.file == str(p)
        assert new.split("=")[0].strip() in p.read_text().splitlines()[e.value.line - 1], (e.value, new)


@pytest.mark.slow
@pytest.mark.parametrize("domain", DOMAINS)
def test_shipped_deployments_validate_and_sorts_match_the_clean_order(domain):
    w, api, db = _world(domain)
    deps = builtin_deployments(get_pack(domain).path, api)
    assert deps, f"{domain} ships no deployment"
    for dep in deps.values():
        for d in dep.defects:
            if d.kind != "pagination" or not d.params.sort_by:
                continue
            for name in d.operations:
                op = api.catalog.get(name)
                coll = {"customer_id": "customers", "user_id": "users", "account_id": "accounts"}.get(op.resource)
                ids = list(db[coll])[:25] if coll else [None]
                for rid in ids:
                    items = api.call(db, name, {op.resource: rid} if rid else {})[op.collection]
                    key = lambda x: tuple(x[k] for k in d.params.sort_by)  # noqa: E731
                    assert items == sorted(items, key=key), (dep.id, name, rid)


def test_shipped_deployments_cover_all_nine_kinds():
    kinds = set()
    for domain in DOMAINS:
        _, api, _ = _world(domain)
        for dep in builtin_deployments(get_pack(domain).path, api).values():
            kinds |= set(dep.kinds())
    assert kinds == set(KINDS)


def test_served_openapi_is_json_identical_to_the_kit_contract():
    with serve("_mock") as (srv, c):
        doc = c.get("/openapi.json").json()
        doc.pop("servers")
        assert json.dumps(doc, sort_keys=True) == json.dumps(srv.state.api.openapi(), sort_keys=True)


def test_real_clock_mode_runs_on_wall_time():
    import time

    body = """[[defects]]
kind = "async_completion"
operations = ["waive_late_fee"]
params = { min_delay_s = 0.3, max_delay_s = 0.3 }"""
    with serve("_mock", body, clock="real") as (srv, c):
        r = c.post("/rentals/PW2001/waive-late-fee", json={"amount": 5})
        assert r.status_code == 202
        t0 = time.monotonic()
        assert c.post("/_clock/wait", json={"seconds": 0.4}).json()["mode"] == "real"
        assert time.monotonic() - t0 >= 0.4                      # a real wait sleeps
        assert c.get(r.headers["location"]).json()["waived"] == 5
        assert c.get("/_clock").json()["now_s"] >= 0.4
