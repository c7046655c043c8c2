"""Property-based contract test: the clean deployment of every built-in domain API, served
over real HTTP, against its own OpenAPI 3.1 document (schemathesis generates requests from
the document and validates status codes, content types, headers and response bodies).
Examples are bounded so the test runs in CI."""
from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from domains.variants import resolve
from outputs.api.app import ApiState
from outputs.api.server import ApiServer

DOMAINS = ["_mock", "airline", "retail", "telecom", "banking"]
_WORLDS = {d: resolve(d) for d in DOMAINS}
_APIS = {d: w.api() for d, w in _WORLDS.items()}
SCHEMAS = {d: schemathesis.openapi.from_dict(api.openapi()) for d, api in _APIS.items()}


@pytest.fixture(scope="module")
def servers():
    out = {}
    try:
        for d in DOMAINS:
            out[d] = ApiServer(ApiState(_APIS[d], _WORLDS[d].database(0))).start()
        yield out
    finally:
        for s in out.values():
            s.stop()


def _check(case, servers, domain):
    case.call_and_validate(base_url=servers[domain].url)


_SETTINGS = settings(max_examples=12, deadline=None, derandomize=True, database=None,
                     suppress_health_check=list(HealthCheck))


@pytest.mark.slow
@SCHEMAS["_mock"].parametrize()
@_SETTINGS
def test_mock_contract(case, servers):
    _check(case, servers, "_mock")


@SCHEMAS["airline"].parametrize()
@_SETTINGS
def test_airline_contract(case, servers):
    _check(case, servers, "airline")


@SCHEMAS["retail"].parametrize()
@_SETTINGS
def test_retail_contract(case, servers):
    _check(case, servers, "retail")


@SCHEMAS["telecom"].parametrize()
@_SETTINGS
def test_telecom_contract(case, servers):
    _check(case, servers, "telecom")


@SCHEMAS["banking"].parametrize()
@_SETTINGS
def test_banking_contract(case, servers):
    _check(case, servers, "banking")
