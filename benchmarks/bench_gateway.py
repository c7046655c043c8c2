"""Benchmark: the model gateway under what a hostile agent sends, and its throughput.

    python benchmarks/bench_gateway.py [--connections 1500] [--flood-mib 400] [--calls 500]

The gateway runs in its own process (as in evaluation, litellm's mock response behind it);
this process is the agent. Printed: the gateway's peak resident memory (VmHWM) after a
request with `Content-Length: -1` followed by up to `--flood-mib` MiB, its threads and
memory with `--connections` idle connections open, how many of them were refused (503) and
how many it closed as idle, and model calls per second over one keep-alive connection (the
first call, which imports litellm, not timed).
"""
from __future__ import annotations

import argparse
import http.client
import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SERVE = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[3])
from outputs.evaluator.gateway import ModelGateway
from outputs.packs.menu import load_menu
menu = load_menu("standard-1").menu
menu.models = [m.model_copy(update={"max_calls_per_conversation": 10**9}) for m in menu.models]
gw = ModelGateway(menu, ["mid-fast"], mock_response="hi", idle_timeout_s=float(sys.argv[2]))
gw.start(Path(sys.argv[1]))
print("ready", flush=True)
sys.stdin.read()
gw.stop()
"""


def status(pid: int) -> dict[str, int]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmHWM", "VmRSS", "Threads"):
            out[key] = int(value.split()[0])
    return out


def connect(path: Path) -> socket.socket:
    s = socket.socket(socket.AF_UNIX)
    s.connect(str(path))
    s.settimeout(30)
    return s


def read_all(s: socket.socket) -> bytes:
    out = b""
    while chunk := s.recv(65536):
        out += chunk
    return out


class Unix(http.client.HTTPConnection):
    def __init__(self, path: Path):
        super().__init__("gateway", timeout=30)
        self.path_ = path

    def connect(self) -> None:
        self.sock = connect(self.path_)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--connections", type=int, default=1500)
    ap.add_argument("--flood-mib", type=int, default=400)
    ap.add_argument("--calls", type=int, default=500)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        sock = Path(tmp) / "gateway.sock"
        p = subprocess.Popen([sys.executable, "-c", SERVE, str(sock), "2.0", str(ROOT)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert p.stdout.readline() == b"ready\n"
        print(f"started: {status(p.pid)}")

        s = connect(sock)
        s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: -1\r\n\r\n")
        answer = s.recv(65536).split(b"\r\n")[0].decode()
        sent, chunk = 0, b"x" * (1 << 20)
        try:
            while sent < args.flood_mib << 20:
                s.sendall(chunk)
                sent += len(chunk)
        except OSError:
            pass
        s.close()
        print(f"Content-Length -1 then {args.flood_mib} MiB: {answer!r}, {sent >> 20} MiB accepted before the "
              f"gateway closed, {status(p.pid)}")

        conns, t0 = [], time.perf_counter()
        for _ in range(args.connections):
            conns.append(connect(sock))
        opened = time.perf_counter() - t0
        time.sleep(0.5)
        st = status(p.pid)
        refused = idle = 0
        for c in conns:
            got = read_all(c)
            refused += got.startswith(b"HTTP/1.1 503 ")
            idle += got == b""
            c.close()
        print(f"{args.connections} idle connections opened in {opened:.2f} s: {st}; {refused} refused (503), "
              f"{idle} closed when idle")

        body = json.dumps({"model": "mid-fast", "messages": [{"role": "user", "content": "hi"}]})
        c = Unix(sock)
        for i in range(args.calls + 1):
            if i == 1:
                t0 = time.perf_counter()         # after the first call, which imports litellm
            c.request("POST", "/v1/chat/completions", body=body, headers={"Content-Type": "application/json"})
            r = c.getresponse()
            data = r.read()
            assert r.status == 200, data[:300]
        dt = time.perf_counter() - t0
        c.close()
        print(f"{args.calls} model calls (litellm mock) over one connection: {args.calls / dt:.0f} calls/s; "
              f"{status(p.pid)}")
        p.stdin.close()
        p.wait(timeout=30)
        err = p.stderr.read().decode()
        print(f"gateway exit {p.returncode}, stderr {len(err)} bytes")


if __name__ == "__main__":
    main()
