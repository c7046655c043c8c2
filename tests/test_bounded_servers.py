"""The model gateway as an agent sees it, run in its own process so that its memory and
threads are measured alone: a lying Content-Length followed by hundreds of MiB, and many
idle connections, leave it small, with a bounded number of threads and no traceback."""
from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

SERVE = """
import sys
from pathlib import Path
from outputs.evaluator.gateway import ModelGateway
from outputs.packs.menu import load_menu
gw = ModelGateway(load_menu("standard-1").menu, ["mid-fast"], mock_response="hi", idle_timeout_s=float(sys.argv[2]))
gw.start(Path(sys.argv[1]))
print("ready", flush=True)
sys.stdin.read()
gw.stop()
"""


@pytest.fixture
def gateway_process(tmp_path):
    sock = tmp_path / "gateway.sock"
    p = subprocess.Popen([sys.executable, "-c", SERVE, str(sock), "1.0"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=Path(__file__).resolve().parents[1])
    try:
        assert p.stdout.readline() == b"ready\n", p.stderr.read()
        yield p, sock
    finally:
        p.stdin.close()
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def status(pid: int, key: str) -> int:
    """A field of /proc/PID/status (VmHWM in KiB, Threads)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise KeyError(key)


def connect(sock: Path, timeout: float = 10.0) -> socket.socket:
    s = socket.socket(socket.AF_UNIX)
    s.connect(str(sock))                 # blocking: a full backlog waits for the gateway to accept
    s.settimeout(timeout)
    return s


def read_all(s: socket.socket) -> bytes:
    out = b""
    while chunk := s.recv(65536):
        out += chunk
    return out


def read_answer(s: socket.socket) -> bytes:
    """One answer (head and Content-Length body), without waiting for the connection to close."""
    out = b""
    while b"\r\n\r\n" not in out:
        out += s.recv(65536)
    head, _, body = out.partition(b"\r\n\r\n")
    n = int(next(v for k, _, v in (h.partition(b": ") for h in head.split(b"\r\n")) if k == b"Content-Length"))
    while len(body) < n:
        body += s.recv(65536)
    return head + b"\r\n\r\n" + body


def test_a_negative_content_length_then_400_mib_leaves_the_gateway_small(gateway_process):
    p, sock = gateway_process
    s = connect(sock)
    s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\nContent-Length: -1\r\n\r\n")
    answer = read_answer(s)                    # answered from the head alone
    assert answer.startswith(b"HTTP/1.1 400 ") and b'"bad_request"' in answer and b"Connection: close" in answer
    chunk, sent, t0 = b"x" * (1 << 20), 0, time.monotonic()
    try:
        while sent < 400 << 20 and time.monotonic() - t0 < 60:
            s.sendall(chunk)
            sent += len(chunk)
    except OSError:
        pass                                   # closed after at most 1 MiB more: the rest is never read
    s.close()
    assert sent < 16 << 20
    for lie in (b"abc", b"-1", b"1e9", b""):
        s = connect(sock)
        s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: " + lie + b"\r\n\r\n{}")
        assert read_all(s).startswith(b"HTTP/1.1 400 ")
        s.close()
    s = connect(sock)                           # honest, at the limit, not JSON: read, refused, still small
    s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nConnection: close\r\nContent-Length: %d\r\n\r\n" % (8 << 20))
    s.sendall(b"x" * (8 << 20))
    assert read_all(s).startswith(b"HTTP/1.1 400 ")
    s.close()
    assert status(p.pid, "VmHWM") < 150 << 10                 # KiB: well under 400 MB
    p.stdin.close()
    p.wait(timeout=20)
    assert p.returncode == 0 and p.stderr.read() == b""       # no traceback, nothing logged


def test_1500_idle_connections_use_a_bounded_number_of_threads_and_time_out(gateway_process):
    p, sock = gateway_process
    conns, t0 = [], time.monotonic()
    try:
        while len(conns) < 1500 and time.monotonic() - t0 < 30:
            conns.append(connect(sock))
        assert len(conns) == 1500
        time.sleep(0.3)
        assert status(p.pid, "Threads") <= 8                       # the loop, 4 workers at most, the main thread
        refused = read_all(conns[-1])
        assert refused.startswith(b"HTTP/1.1 503 ") and b'"too_many_connections"' in refused
        assert read_all(conns[0]) == b""                       # idle for the timeout (1 s here): closed, no answer
        s = connect(sock)                                      # and the gateway still answers
        s.sendall(b"GET /v1/models HTTP/1.1\r\nConnection: close\r\n\r\n")
        assert read_all(s).startswith(b"HTTP/1.1 200 ")
        s.close()
    finally:
        for c in conns:
            c.close()
    p.stdin.close()
    p.wait(timeout=20)
    assert p.returncode == 0 and p.stderr.read() == b""
