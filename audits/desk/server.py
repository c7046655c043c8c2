"""Running the desk under uvicorn: in the foreground (the CLI) or in a background thread (tests,
the screenshot script, the benchmark), always on a socket bound before the server starts so
that port 0 gives a free port whose URL is known up front."""
from __future__ import annotations

import socket
import threading
import time
from typing import Optional

import uvicorn
from fastapi import FastAPI

from facts.errors import FactforgeError


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        raise FactforgeError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def _config(app: FastAPI) -> uvicorn.Config:
    return uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                          timeout_graceful_shutdown=5)


def serve_forever(app: FastAPI, sock: socket.socket) -> None:
    """Serve until interrupted (Ctrl-C stops it cleanly, exit 130 from the CLI). uvicorn
    re-raises the signal it caught after its graceful shutdown, but a process started with
    SIGINT ignored (as under some process managers and test runners) would then just return:
    the caught signal is turned into KeyboardInterrupt here, so the exit is the same."""
    server = uvicorn.Server(_config(app))
    server.run(sockets=[sock])
    if getattr(server, "_captured_signals", None):
        raise KeyboardInterrupt


class ServerThread:
    """`with ServerThread(app) as url: ...` serves `app` on a free loopback port in a daemon
    thread and stops it (and closes the socket) on exit."""

    def __init__(self, app: FastAPI, host: str = "127.0.0.1", port: int = 0):
        self.app, self.host, self.port = app, host, port
        self.url = ""
        self._server: Optional[uvicorn.Server] = None
        self._thread: Optional[threading.Thread] = None
        self._sock: Optional[socket.socket] = None

    def start(self, timeout: float = 20.0) -> str:
        self._sock = bind(self.host, self.port)
        self.url = url_of(self._sock)
        self._server = uvicorn.Server(_config(self.app))
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]},
                                        name="factforge-desk", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the desk server did not start")
            time.sleep(0.02)
        return self.url

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=15)
        if self._sock is not None:
            self._sock.close()
        self._server = self._thread = self._sock = None

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
