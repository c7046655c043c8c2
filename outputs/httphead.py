"""An HTTP/1.x request head, parsed strictly: one definition for the bounded servers that read
requests themselves (the evaluator's model gateway and the engagement's model proxy).

Anything malformed is a `Refused` (400), a body without a Content-Length 411, a Content-Length
over the server's limit 413, more than `MAX_HEADERS` fields 431; the caller answers it in its
own error format and closes the connection, whose framing can no longer be trusted."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

HEADER_LIMIT = 16 << 10       # a request line and its headers
MAX_HEADERS = 100

_TOKEN = re.compile(rb"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_BAD_VALUE = re.compile(rb"[\x00-\x08\x0a-\x1f\x7f]")

REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
           405: "Method Not Allowed", 408: "Request Timeout", 411: "Length Required", 413: "Content Too Large",
           422: "Unprocessable Content", 429: "Too Many Requests", 431: "Request Header Fields Too Large",
           500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
           505: "HTTP Version Not Supported", 529: "Overloaded"}


class Refused(Exception):
    """A request answered with an error (`status`, a short `code`, a one-line `message`)."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass
class RequestHead:
    method: str
    path: str
    length: int
    close: bool
    expect_continue: bool
    headers: dict[str, list[str]] = field(default_factory=dict)   # lower-case names, in arrival order

    def header(self, name: str) -> str | None:
        values = self.headers.get(name.lower())
        return values[-1] if values else None


def parse_head(head: bytes, body_limit: int) -> RequestHead:
    """The request line and headers ending in a blank line (HTTP/1.1 or 1.0, CRLF line ends)."""
    lines = head[:-4].split(b"\r\n")
    parts = lines[0].split(b" ")
    if len(parts) != 3 or not _TOKEN.match(parts[0]) or not parts[1].startswith(b"/"):
        raise Refused(400, "bad_request", "malformed request line")
    if parts[2] not in (b"HTTP/1.1", b"HTTP/1.0"):
        raise Refused(505, "http_version_not_supported", "only HTTP/1.1 and 1.0 are served")
    if len(lines) - 1 > MAX_HEADERS:
        raise Refused(431, "headers_too_large", f"more than {MAX_HEADERS} header fields")
    headers: dict[bytes, list[bytes]] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        if not colon or not _TOKEN.match(name) or _BAD_VALUE.search(value):
            raise Refused(400, "bad_request", "malformed header field")
        headers.setdefault(name.lower(), []).append(value.strip(b" \t"))
    if b"transfer-encoding" in headers:
        raise Refused(411, "length_required", "Transfer-Encoding is not accepted; send Content-Length")
    cl = headers.get(b"content-length")
    if cl is None:
        if parts[0] == b"POST":
            raise Refused(411, "length_required", "a POST needs a Content-Length")
        length = 0
    elif len(cl) != 1 or not cl[0].isdigit() or len(cl[0]) > 12:
        raise Refused(400, "bad_request", "Content-Length must be one non-negative decimal integer")
    else:
        length = int(cl[0])
    if length > body_limit:
        raise Refused(413, "payload_too_large", f"the request exceeds {body_limit >> 20} MiB")
    conn = b",".join(headers.get(b"connection", [])).lower()
    close = b"close" in conn or (parts[2] == b"HTTP/1.0" and b"keep-alive" not in conn)
    expect = b",".join(headers.get(b"expect", [])).lower() == b"100-continue"
    return RequestHead(parts[0].decode("ascii"), parts[1].decode("ascii", "replace"), length, close, expect,
                       {k.decode("ascii"): [v.decode("latin-1") for v in vs] for k, vs in headers.items()})
