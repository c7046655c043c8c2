"""The two faces of the developer's tools, each a Unix socket served by the engage process.

- `tools.sock` (`JsonLinesFace`): one JSON object per line, `{"tool": NAME, "args": {...}}`,
  answered by one line, `{"ok": true, "result": {...}}` or `{"ok": false, "error": "one line"}`.
  `ff` speaks it.
- `mcp.sock` (`McpFace`): one MCP session per connection, newline-delimited JSON-RPC (the
  stdio transport's framing), served by the official SDK's low-level `Server`; the relay
  `ff-mcp` pipes a developer program's stdio to it.

Both call `ToolService.call` (typed as the `host.ToolHost` protocol). Whatever a connection
sends, the face answers or closes that connection and keeps serving the others: a line is at
most `MAX_LINE` bytes (a longer one is refused and the connection closed), at most
`MAX_CONNECTIONS` are open at once per face (the next is refused), a `tools.sock` connection
silent for `IDLE_S` is closed.
"""
from __future__ import annotations

import functools
import json
import os
import socket
import threading
import time
from pathlib import Path
from typing import Any, Optional

import anyio
import mcp.types as types
import mcp_types
import uvicorn
from anyio.from_thread import start_blocking_portal
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp.server.lowlevel import Server
from mcp.shared.message import SessionMessage

from facts.errors import FactforgeError
from outputs.jsondepth import nested_deeper

from .errors import ToolError
from .host import ToolHost

MAX_LINE = 2 << 20            # bytes of one request line
MAX_DEPTH = 64                # nesting of a request
MAX_CONNECTIONS = 32          # open at once, per face
IDLE_S = 600.0                # a tools.sock connection silent this long is closed
SUN_PATH = 107                # bytes of a Unix socket path


def socket_path(sock_dir: Path, name: str) -> Path:
    """`sock_dir/NAME.sock`, free to bind (an old socket is removed; anything else refused)."""
    p = Path(sock_dir) / f"{name}.sock"
    if len(os.fsencode(str(p.resolve()))) > SUN_PATH:
        raise FactforgeError(f"the socket path is over {SUN_PATH} bytes; use a shorter socket folder", p)
    if p.exists() or p.is_symlink():
        if not p.is_socket():
            raise FactforgeError("exists and is not a socket; refusing to replace it", p)
        p.unlink()
    return p


def parse_request(line: bytes) -> tuple[Any, Any]:
    """(tool name, arguments) of a tools.sock line, or a ToolError saying why not."""
    try:
        req = json.loads(line)
    except (ValueError, RecursionError):
        raise ToolError("the request is not JSON: send one object per line, "
                        '{"tool": NAME, "args": {...}}', "malformed") from None
    if nested_deeper(req, MAX_DEPTH):
        raise ToolError(f"the request is nested deeper than {MAX_DEPTH} levels", "malformed")
    if not isinstance(req, dict) or "tool" not in req or set(req) - {"tool", "args"}:
        raise ToolError('a request is one object {"tool": NAME, "args": {...}}', "malformed")
    return req["tool"], req.get("args")


class JsonLinesFace:
    """`tools.sock`: JSON lines (module docstring), a thread per connection."""

    def __init__(self, svc: ToolHost, path: Path):
        self.svc, self.path = svc, Path(path)
        self._sock: Optional[socket.socket] = None
        self._conns: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread: Optional[threading.Thread] = None

    def start(self) -> "JsonLinesFace":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(str(self.path))
        os.chmod(self.path, 0o660)
        s.listen(64)
        s.settimeout(0.2)
        self._sock = s
        self._thread = threading.Thread(target=self._accept, name="factforge-engage-tools", daemon=True)
        self._thread.start()
        return self

    def _accept(self) -> None:
        assert self._sock is not None
        while not self._stopping.is_set():
            try:
                conn, _ = self._sock.accept()
            except (socket.timeout, BlockingIOError):
                continue
            except OSError:
                return
            with self._lock:
                full = len(self._conns) >= MAX_CONNECTIONS
                if not full:
                    self._conns.add(conn)
            if full:
                self._send(conn, {"ok": False, "error": f"too many connections (at most {MAX_CONNECTIONS})"})
                conn.close()
                continue
            threading.Thread(target=self._serve, args=(conn,), name="factforge-engage-tools-conn", daemon=True).start()

    @staticmethod
    def _send(conn: socket.socket, reply: dict) -> bool:
        try:
            conn.sendall(json.dumps(reply, ensure_ascii=False, default=str).encode("utf-8") + b"\n")
            return True
        except OSError:
            return False

    def _serve(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(IDLE_S)
            f = conn.makefile("rb")
            while not self._stopping.is_set():
                try:
                    line = f.readline(MAX_LINE + 1)
                except (OSError, ValueError):
                    return
                if not line:
                    return
                if len(line) > MAX_LINE:
                    msg = f"a request line is at most {MAX_LINE} bytes; the connection is closed"
                    self.svc.refuse(msg, "ff")
                    self._send(conn, {"ok": False, "error": msg})
                    return
                if not line.strip():
                    continue
                if not self._send(conn, self.answer(line)):
                    return
        finally:
            with self._lock:
                self._conns.discard(conn)
            conn.close()

    def answer(self, line: bytes) -> dict:
        try:
            name, args = parse_request(line)
        except ToolError as e:
            self.svc.refuse(str(e), "ff")
            return {"ok": False, "error": str(e)}
        try:
            return {"ok": True, "result": self.svc.call(name, args, face="ff")}
        except ToolError as e:
            return {"ok": False, "error": str(e)}

    def stop(self) -> None:
        self._stopping.set()
        if self._sock is not None:
            self._sock.close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self._lock:
            conns, self._conns = list(self._conns), set()
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self.path.is_socket():
            self.path.unlink()


def make_server(svc: ToolHost, face: str) -> Server:
    """The SDK's low-level MCP server over the service's tools; calls are recorded as `face`."""

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(name=t["name"], description=t["description"],
                                                       input_schema=t["input_schema"]) for t in svc.tools])

    async def call_tool(ctx, params) -> types.CallToolResult:
        run = functools.partial(svc.call, params.name, params.arguments or {}, face=face)
        try:
            result = await anyio.to_thread.run_sync(run, abandon_on_cancel=True)
        except ToolError as e:
            return types.CallToolResult(content=[types.TextContent(type="text", text=str(e))], is_error=True)
        text = json.dumps(result, ensure_ascii=False, default=str)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=result)

    return Server("factforge-engagement", version="1.0",
                  instructions="The developer's tools of a factforge engagement: ask the owner, call the development "
                               "API, run samples and live experiments, list models, submit.",
                  on_list_tools=list_tools, on_call_tool=call_tool)


class McpFace:
    """`mcp.sock`: one MCP session per connection (the SDK's low-level `Server`, newline-
    delimited JSON-RPC), on an anyio event loop in a thread of its own."""

    def __init__(self, svc: ToolHost, path: Path):
        self.svc, self.path = svc, Path(path)
        self._portal_cm = None
        self._portal = None
        self._scope = None
        self._future = None
        self._ready = threading.Event()
        self._open = 0
        self.server = make_server(svc, "mcp")

    def start(self) -> "McpFace":
        self._portal_cm = start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        self._future = self._portal.start_task_soon(self._serve)
        while not self._ready.wait(0.05):
            if self._future.done():
                self._future.result()      # raises what stopped it
                raise FactforgeError("the MCP face did not start", self.path)
        return self

    async def _serve(self) -> None:
        self._scope = anyio.CancelScope()
        with self._scope:
            listener = await anyio.create_unix_listener(self.path, mode=0o660)
            self._ready.set()
            async with listener:
                await listener.serve(self._connection)

    async def _connection(self, stream) -> None:
        async with stream:
            if self._open >= MAX_CONNECTIONS:
                return
            self._open += 1
            try:
                await self._session(stream)
            except Exception as e:  # noqa: BLE001  (one broken session never stops the face)
                self.svc.refuse(f"an MCP session ended on an error: {type(e).__name__}", "mcp")
            finally:
                self._open -= 1

    async def _session(self, stream) -> None:
        read_send, read_recv = anyio.create_memory_object_stream(0)
        write_send, write_recv = anyio.create_memory_object_stream(0)
        buffered = BufferedByteReceiveStream(stream)

        async def reader() -> None:
            async with read_send:
                while True:
                    try:
                        line = await buffered.receive_until(b"\n", MAX_LINE)
                    except anyio.DelimiterNotFound:
                        self.svc.refuse(f"an MCP message is at most {MAX_LINE} bytes; the session is closed", "mcp")
                        return
                    except (anyio.IncompleteRead, anyio.EndOfStream, anyio.ClosedResourceError,
                            anyio.BrokenResourceError, OSError):
                        return
                    if not line.strip():
                        continue
                    try:
                        message = mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                    except Exception as exc:  # noqa: BLE001  (the session answers a parse error)
                        self.svc.refuse("an MCP message that is not JSON-RPC", "mcp")
                        await read_send.send(exc)
                        continue
                    await read_send.send(SessionMessage(message))

        async def writer() -> None:
            async with write_recv:
                async for sm in write_recv:
                    data = sm.message.model_dump_json(by_alias=True, exclude_unset=True)
                    try:
                        await stream.send(data.encode("utf-8") + b"\n")
                    except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                        return

        async with anyio.create_task_group() as tg:
            tg.start_soon(reader)
            tg.start_soon(writer)
            await self.server.run(read_recv, write_send, self.server.create_initialization_options())
            tg.cancel_scope.cancel()

    def stop(self) -> None:
        if self._portal is not None:
            if self._scope is not None:
                try:
                    self._portal.call(self._scope.cancel)
                except RuntimeError:
                    pass
            try:
                self._portal_cm.__exit__(None, None, None)
            except Exception:  # noqa: BLE001  (the loop is going away whatever it says)
                pass
        self._portal = self._portal_cm = None
        if self.path.is_socket():
            self.path.unlink()


class McpHttpFace:
    """`mcp-http.sock`: the same MCP server over streamable HTTP (the SDK's app, path `/mcp`),
    served by uvicorn on a Unix socket; `ff-mcp --http PORT` forwards a loopback port of the
    developer's boundary to it, for programs that take MCP servers as URLs only."""

    def __init__(self, svc: ToolHost, path: Path):
        self.svc, self.path = svc, Path(path)
        self.app = make_server(svc, "mcp-http").streamable_http_app(max_sessions=MAX_CONNECTIONS)
        self._server = None
        self._thread: Optional[threading.Thread] = None
        self._sock: Optional[socket.socket] = None

    def start(self, timeout: float = 20.0) -> "McpHttpFace":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(str(self.path))
        os.chmod(self.path, 0o660)
        s.listen(64)
        self._sock = s
        self._server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning", access_log=False, lifespan="on",
                                                     limit_concurrency=MAX_CONNECTIONS * 2, server_header=False,
                                                     timeout_graceful_shutdown=2))
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [s]},
                                        name="factforge-engage-mcp-http", daemon=True)
        self._thread.start()
        t0 = time.monotonic()
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() - t0 > timeout:
                self.stop()
                raise FactforgeError("the MCP HTTP face did not start", self.path)
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self._sock is not None:
            self._sock.close()
        self._server = self._thread = self._sock = None
        if self.path.is_socket():
            self.path.unlink()
