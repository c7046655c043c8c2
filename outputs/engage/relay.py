#!/usr/bin/env python3
"""ff-mcp: the engagement's MCP server for a developer program.

    ff-mcp                 stdio: standard input and output piped to mcp.sock
    ff-mcp --http PORT     streamable HTTP: 127.0.0.1:PORT (0: a free port) forwarded to
                           mcp-http.sock; prints the server's URL (http://127.0.0.1:PORT/mcp)

A developer program configures its MCP server as the stdio command `ff-mcp`, or, when it takes
MCP servers as URLs only, starts `ff-mcp --http PORT` and uses the URL it prints. The sockets
are in `$FF_SOCKETS` (default `/run/ff`). Bytes pass unchanged in both directions until
either side ends. Standard library only: it runs under any Python 3 inside the developer's
boundary.
"""
import os
import socket
import sys
import threading

CHUNK = 1 << 16


def _sockets() -> str:
    return os.environ.get("FF_SOCKETS") or "/run/ff"


def _connect(name: str) -> socket.socket:
    path = os.path.join(_sockets(), name)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError as e:
        sock.close()
        raise SystemExit(f"ff-mcp: cannot reach the engagement's MCP server at {path}: {e.strerror or e}")
    return sock


def _pump(read, write, done) -> None:
    """Copy until end of input or an error, then `done()`."""
    try:
        while True:
            data = read()
            if not data:
                break
            write(data)
    except OSError:
        pass
    done()


def _shut(sock: socket.socket, how: int) -> None:
    try:
        sock.shutdown(how)
    except OSError:
        pass


def _write_all(data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(1, view)
        view = view[n:]


def stdio() -> int:
    sock = _connect("mcp.sock")
    threading.Thread(target=_pump, args=(lambda: os.read(0, CHUNK), sock.sendall,
                                         lambda: _shut(sock, socket.SHUT_WR)), daemon=True).start()
    _pump(lambda: sock.recv(CHUNK), _write_all, sock.close)
    return 0


def _forward(client: socket.socket) -> None:
    try:
        upstream = _connect("mcp-http.sock")
    except SystemExit as e:
        sys.stderr.write(f"{e}\n")
        client.close()
        return
    up = threading.Thread(target=_pump, args=(lambda: client.recv(CHUNK), upstream.sendall,
                                              lambda: _shut(upstream, socket.SHUT_WR)), daemon=True)
    up.start()
    _pump(lambda: upstream.recv(CHUNK), client.sendall, lambda: _shut(client, socket.SHUT_WR))
    up.join()
    upstream.close()
    client.close()


def http(port: int) -> int:
    _connect("mcp-http.sock").close()          # fail now, in one line, when the server is not there
    try:
        server = socket.create_server(("127.0.0.1", port))
    except OSError as e:
        raise SystemExit(f"ff-mcp: cannot listen on 127.0.0.1:{port}: {e.strerror or e}")
    sys.stdout.write(f"http://127.0.0.1:{server.getsockname()[1]}/mcp\n")
    sys.stdout.flush()
    while True:
        client, _ = server.accept()
        threading.Thread(target=_forward, args=(client,), daemon=True).start()


def main(argv: list) -> int:
    if not argv:
        return stdio()
    if len(argv) == 2 and argv[0] == "--http" and argv[1].isdigit() and int(argv[1]) < 65536:
        return http(int(argv[1]))
    raise SystemExit("ff-mcp: usage: ff-mcp (stdio) or ff-mcp --http PORT")


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
