#!/usr/bin/env python3
"""The loopback relay: runs inside the developer's boundary, which has no network, and makes the
engagement's model proxy reachable as `http://127.0.0.1:PORT`.

    looprelay.py --socket /run/ff/model.sock --port 8377

Listens on 127.0.0.1:PORT and joins each accepted connection to a new connection to the Unix
socket, copying bytes both ways unchanged until either side closes (a half-close is passed on).
It knows no HTTP and no credential: those live in the proxy, outside the boundary. At most
`--max-connections` connections are joined at once (the next is closed at once). With
`--port 0` the system chooses the port. It prints one line, `listening 127.0.0.1:PORT`, once it
accepts connections, then nothing; it ends on SIGTERM or SIGINT.

Standard library only, so it runs with whatever Python the boundary has.
"""
from __future__ import annotations

import argparse
import asyncio
import signal
import sys

CHUNK = 1 << 16
MAX_CONNECTIONS = 128


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while chunk := await reader.read(CHUNK):
            writer.write(chunk)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except (OSError, asyncio.IncompleteReadError):
        writer.close()


class LoopRelay:
    """127.0.0.1:`port` -> the Unix socket `socket_path`, byte for byte."""

    def __init__(self, socket_path: str, port: int = 0, host: str = "127.0.0.1",
                 max_connections: int = MAX_CONNECTIONS):
        self.socket_path, self.host, self.port = socket_path, host, port
        self.max_connections = max_connections
        self.open = 0
        self.tasks: set = set()
        self.server: asyncio.AbstractServer | None = None

    async def _join(self, c_reader: asyncio.StreamReader, c_writer: asyncio.StreamWriter) -> None:
        if self.open >= self.max_connections:
            c_writer.close()
            return
        self.open += 1
        task = asyncio.current_task()
        self.tasks.add(task)
        u_writer = None
        try:
            u_reader, u_writer = await asyncio.open_unix_connection(self.socket_path)
            await asyncio.gather(_pipe(c_reader, u_writer), _pipe(u_reader, c_writer))
        except (OSError, asyncio.CancelledError):
            pass   # the proxy is not there, or the relay is stopping: the connection just closes
        finally:
            self.open -= 1
            self.tasks.discard(task)
            if u_writer is not None:
                u_writer.close()
            c_writer.close()

    async def start(self) -> int:
        """Start listening; returns the port."""
        self.server = await asyncio.start_server(self._join, self.host, self.port, reuse_address=True)
        self.port = self.server.sockets[0].getsockname()[1]
        return self.port

    async def serve(self, ready=None) -> None:
        port = await self.start()
        if ready is not None:
            ready(port)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            try:
                loop.add_signal_handler(sig, stop.set)
            except (ValueError, RuntimeError):   # not the main thread: the caller stops the loop
                pass
        await stop.wait()
        await self.close()

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
        for t in list(self.tasks):
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="looprelay", description="127.0.0.1:PORT -> a Unix socket, byte for byte")
    ap.add_argument("--socket", required=True, help="the Unix socket to reach")
    ap.add_argument("--port", type=int, default=0, help="the loopback port (0: the system chooses)")
    ap.add_argument("--max-connections", type=int, default=MAX_CONNECTIONS)
    args = ap.parse_args(argv)
    relay = LoopRelay(args.socket, args.port, max_connections=args.max_connections)
    try:
        asyncio.run(relay.serve(lambda port: print(f"listening 127.0.0.1:{port}", flush=True)))
    except OSError as e:
        print(f"error: looprelay: cannot listen on 127.0.0.1:{args.port}: {e.strerror}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
