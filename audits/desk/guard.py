"""What the desk refuses before any page handler runs.

- **A foreign `Host`** (400): a page on another site whose name an attacker re-points at this
  machine (DNS rebinding) sends its own name as `Host`. The desk answers only the names it
  serves: the loopback names, the `--host` it listens on, and the `--allow-host` names.
  Listening on every interface (`0.0.0.0`, `::`) also admits IP addresses, which no
  rebinding can forge (the browser's origin is then the address itself).
- **A cross-site state change** (403): a POST whose `Origin` names another site is refused;
  one without `Origin`, or with `Origin: null` (sandboxed frames, some redirects, older
  browsers), must carry the form token: an HMAC of a random per-browser cookie under the
  server's secret, put into every form the desk renders (field `csrf`, or the
  `X-CSRF-Token` header). Another site can neither read the cookie nor compute the token.
"""
from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
from typing import Iterable, Optional
from urllib.parse import urlsplit

CSRF_COOKIE = "ffdesk_csrf"
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARDS = ("0.0.0.0", "::", "")
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def _hostname(value: str) -> Optional[str]:
    """The name part of a `Host` header or an allow-list entry (lower case, no port, no
    brackets, no final dot), or None when it is not a host."""
    value = value.strip()
    if not value or any(c in value for c in "/\\@?# \t"):
        return None
    try:
        name = urlsplit("//" + value).hostname
    except ValueError:
        return None
    return name.rstrip(".") if name else None


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class HostCheck:
    """The names one desk answers to."""

    def __init__(self, bind_host: str = "127.0.0.1", allow: Iterable[str] = ()):
        names = {*LOOPBACK_NAMES, *(n for n in (_hostname(a) for a in allow) if n)}
        self.any_ip = bind_host.strip("[]") in WILDCARDS
        if not self.any_ip and _hostname(bind_host):
            names.add(_hostname(bind_host))  # type: ignore[arg-type]
        self.names = frozenset(names)

    def allows(self, header: Optional[str]) -> bool:
        name = _hostname(header or "")
        if name is None:
            return False
        return name in self.names or (self.any_ip and _is_ip(name))


def new_seed() -> str:
    return secrets.token_urlsafe(24)


def csrf_token(secret: bytes, seed: Optional[str]) -> str:
    """The form token of the browser holding the cookie `seed`."""
    if not seed:
        return ""
    return hmac.new(secret, b"csrf:" + seed.encode("utf-8"), hashlib.sha256).hexdigest()


def csrf_valid(secret: bytes, seed: Optional[str], given: Optional[str]) -> bool:
    want = csrf_token(secret, seed)
    return bool(want) and bool(given) and hmac.compare_digest(want.encode(), str(given).encode())


def origin_verdict(origin: Optional[str], host: Optional[str]) -> str:
    """"same" (Origin names this server), "foreign" (another site) or "unknown" (no Origin,
    or `null`: only the form token can vouch for the request)."""
    if origin is None or origin.strip() in ("", "null"):
        return "unknown"
    try:
        netloc = urlsplit(origin.strip()).netloc
    except ValueError:
        return "foreign"
    return "same" if host and netloc.lower() == host.lower() else "foreign"
