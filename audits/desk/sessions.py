"""Signed session cookies (HMAC-SHA256, standard library only).

A cookie holds a small JSON payload (`{"r": reviewer, "a": admin}`) and its signature under a
secret the server draws at start-up; a restarted server therefore asks reviewers to sign in
again (their leases and reviews live in the database and are kept). Signing in by name is
identification, not authentication: run the desk on loopback or a trusted network.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from typing import Any, Optional

COOKIE = "ffdesk"


class Signer:
    def __init__(self, secret: Optional[bytes] = None):
        self.secret = secret or secrets.token_bytes(32)

    def _mac(self, body: bytes) -> str:
        return base64.urlsafe_b64encode(hmac.new(self.secret, body, hashlib.sha256).digest()).decode().rstrip("=")

    def dumps(self, data: dict[str, Any]) -> str:
        body = base64.urlsafe_b64encode(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).decode()
        return f"{body.rstrip('=')}.{self._mac(body.rstrip('=').encode())}"

    def loads(self, token: Optional[str]) -> Optional[dict[str, Any]]:
        """The payload of a valid token, else None (tampered, truncated, foreign)."""
        if not token or token.count(".") != 1:
            return None
        body, mac = token.split(".")
        if not hmac.compare_digest(mac, self._mac(body.encode())):
            return None
        try:
            data = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        except ValueError:
            return None
        return data if isinstance(data, dict) else None


def same_token(given: Optional[str], expected: Optional[str]) -> bool:
    return bool(given) and bool(expected) and hmac.compare_digest(given.encode(), expected.encode())
