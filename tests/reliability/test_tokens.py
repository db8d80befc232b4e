"""Bearer credentials parsed exactly as RFC 6750 §2.1 within RFC 7235 §2.1/§4.2, on both stores.

The issue found lower-case ``bearer``, doubled or trailing spaces and duplicate headers accepted
(the first won). Per the RFCs: the scheme is case-insensitive (RFC 7235 §2.1), so ``bearer`` and
``BEARER`` are valid spellings; ``credentials = "Bearer" 1*SP b64token`` allows one *or more*
spaces between scheme and token, so a doubled space there is valid too; a space, tab, comma or
quote in or after the token, a tab before it, a scheme alone or a token of other characters is not
credentials: 400 with ``WWW-Authenticate: Bearer error="invalid_request"`` (RFC 6750 §3.1). Two
``Authorization`` headers are a 400 too (the field is not a list, RFC 7235 §4.2). A token that is
neither configured one is 401 ``invalid_token``, the read token on a write 403 ``insufficient_scope``.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.rest.main import create_app
from app.settings import Settings
from tests.conftest import SEEDS, ingest_into
from tests.reliability.helpers import TOKEN, fingerprint, synthesis_of

READ = "read-token.v2"
CHALLENGE = 'Bearer realm="citegraph", error="{}"'


@pytest.fixture
def client(store):
    ingest_into(store, SEEDS)
    app = create_app(Settings(env_file=None, write_token=TOKEN, read_token=READ), store=store)
    with TestClient(app) as client:
        yield client


def _put(client, headers, system="Spelled"):
    return client.put(f"/documents/{system.lower()}/synthesis", content=synthesis_of(system), headers=headers)


@pytest.mark.parametrize("value", [f"bearer {TOKEN}", f"BEARER {TOKEN}", f"Bearer  {TOKEN}", f"bEaReR   {TOKEN}"])
def test_any_case_of_the_scheme_and_one_or_more_spaces_are_valid_credentials(client, value):
    assert _put(client, {"Authorization": value}).status_code == 201
    assert client.get("/sets", headers={"Authorization": value.replace(TOKEN, READ)}).status_code == 200


@pytest.mark.parametrize("value", [
    f"Bearer {TOKEN} ",          # a trailing space (the case)
    f"Bearer {TOKEN}  ",         # two
    f"Bearer {TOKEN}\t",
    f"Bearer\t{TOKEN}",          # RFC 7235 separates by SP only
    f" Bearer {TOKEN}",
    f"Bearer {TOKEN} {TOKEN}",   # two tokens
    f"Bearer {TOKEN},",
    f'Bearer "{TOKEN}"',
    "Bearer abc=def",            # "=" only as padding at the end
    "Bearer",
    "Bearer ",
    "",
])
def test_malformed_credentials_are_400_invalid_request_and_change_nothing(client, store, value):
    before = fingerprint(store)
    for response in (_put(client, {"Authorization": value}), client.get("/sets", headers={"Authorization": value})):
        assert response.status_code == 400, (value, response.text)
        assert response.json()["error"]["code"] == "BAD_REQUEST"
        assert response.headers["www-authenticate"] == CHALLENGE.format("invalid_request")
    assert fingerprint(store) == before


def test_two_authorization_headers_are_400_even_when_both_are_right(client, store):
    """The issue's case: the first of two headers won."""
    before = fingerprint(store)
    for pair in ([TOKEN, "wrong"], [TOKEN, TOKEN], ["wrong", TOKEN]):
        headers = [("authorization", f"Bearer {value}") for value in pair]
        response = client.put("/documents/twice/synthesis", content=synthesis_of("Twice"), headers=headers)
        assert response.status_code == 400, response.text
        assert response.json()["error"]["message"] == "2 Authorization headers: send one"
        assert response.headers["www-authenticate"] == CHALLENGE.format("invalid_request")
        read = client.get("/sets", headers=[("authorization", f"Bearer {READ}")] * 2)
        assert read.status_code == 400
        graphql = client.post("/graphql", json={"query": "{ sets { totalCount } }"}, headers=headers)
        assert graphql.status_code == 400
    assert fingerprint(store) == before


def test_missing_wrong_and_insufficient_tokens_get_the_rfc_6750_challenges(client):
    missing = _put(client, {})
    assert (missing.status_code, missing.headers["www-authenticate"]) == (401, 'Bearer realm="citegraph"')
    wrong = _put(client, {"Authorization": "Bearer wrong"})
    assert (wrong.status_code, wrong.headers["www-authenticate"]) == (401, CHALLENGE.format("invalid_token"))
    scope = _put(client, {"Authorization": f"Bearer {READ}"})
    assert (scope.status_code, scope.headers["www-authenticate"]) == (403, CHALLENGE.format("insufficient_scope"))
    other = client.get("/sets", headers={"Authorization": "Basic dXNlcjpwYXNz"})  # another scheme: no bearer token
    assert (other.status_code, other.headers["www-authenticate"]) == (401, 'Bearer realm="citegraph"')
