#!/usr/bin/env python3
"""ff-mcp: the engagement's MCP server as a stdio command.

A developer program configures its MCP server as the command `ff-mcp` (no arguments). The
relay connects to `mcp.sock` in `$FF_SOCKETS` (default `/run/ff`) and pipes its standard
input to the socket and the socket to its standard output, byte for byte, until either side
ends. Standard library only: it runs under any Python 3 inside the developer's boundary.
"""
import os
import socket
import sys
import threading

CHUNK = 1 << 16


def _pump_in(sock: socket.socket) -> None:
    try:
        while True:
            data = os.read(0, CHUNK)
            if not data:
                break
            sock.sendall(data)
    except OSError:
        pass
    try:
        sock.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def _write_all(data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(1, view)
        view = view[n:]


def main() -> int:
    path = os.path.join(os.environ.get("FF_SOCKETS") or "/run/ff", "mcp.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError as e:
        sys.stderr.write(f"ff-mcp: cannot reach the engagement's MCP server at {path}: {e.strerror or e}\n")
        return 1
    threading.Thread(target=_pump_in, args=(sock,), daemon=True).start()
    try:
        while True:
            data = sock.recv(CHUNK)
            if not data:
                break
            _write_all(data)
    except OSError:
        pass
    finally:
        sock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
