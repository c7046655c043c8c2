"""Serving a task's API: in-process (a uvicorn thread, for tests and the evaluator) or in
the foreground (`factforge api serve`), on loopback TCP or a Unix domain socket.

```python
from outputs.api.server import ApiServer
with ApiServer.from_pack(pack_dir, "airline-throttled-search", uds="/tmp/x/api.sock") as srv:
    srv.url                # "http+unix://%2Ftmp%2Fx%2Fapi.sock" (or "http://127.0.0.1:PORT")
    srv.state.reset(1)     # trial 1: seed database, empty log, clock at 0
    ...                    # the agent talks to srv.url
    srv.state.settle()     # finish asynchronous jobs
    srv.state.log          # CallLog: replay_calls() is what grading replays
```

A Unix socket serves agents in a sandbox without a network (bind-mount the socket file);
`url` then uses the `http+unix://<percent-encoded socket path>` scheme the kit SDK reads.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Callable, Optional

from domains.variants import resolve
from facts.errors import FactforgeError
from outputs.packs.store import Pack

from .app import ApiState, build_app
from .deployment import Deployment, clean_deployment, parse_deployment


def uds_url(path: str | Path) -> str:
    return "http+unix://" + urllib.parse.quote(str(Path(path).resolve()), safe="")


def load_task(pack_dir: Path | str, task_id: str, *, dev: bool = False,
              domains_dirs: Optional[list] = None) -> tuple:
    """(DomainApi, database, Deployment) of a pack's task. `dev`: the kit's development
    database (the developer's own runs) instead of the sealed test database."""
    pack = Pack(Path(pack_dir))
    task = pack.json(task_id, "sealed", "task.json")
    world = resolve(task["bundle"], domains_dirs)
    api = world.api()
    if api is None:
        raise FactforgeError(f"task {task_id}: domain {task['domain']!r} has no API to serve")
    db = pack.json(task_id, "kit", "data/dev_db.json") if dev else pack.json(task_id, "sealed", "db.json")
    dep_id = task["deployment"]["id"]
    if pack.has(task_id, "sealed", "deployment.toml"):
        raw = pack.read(task_id, "sealed", "deployment.toml").decode("utf-8")
        deployment = parse_deployment(raw, Path(f"{dep_id}.toml"), api)
    else:
        deployment = clean_deployment()
    return api, db, deployment


def task_capabilities(task: dict) -> list[str]:
    """The operations a task's deployment hides until its client switches them on (the sealed
    task.json's `capabilities`; none for a task without them)."""
    return [c["operation"] for c in task.get("capabilities", [])]


def switched(task: dict, capabilities: Optional[list[str]], fixes: Optional[list[str]],
             task_id: Optional[str] = None) -> tuple[set, set]:
    """(capabilities switched on, defects fixed) of a run of a task (its sealed task.json):
    `capabilities` names operations of the task's capabilities and `fixes` defect indices the
    client can fix, either may say "all"; None: nothing. FactforgeError for a name the task
    does not have."""
    caps, fixable = task_capabilities(task), list(task.get("fixable", []))
    name = task_id or task.get("spec", {}).get("id", "?")
    wanted = list(capabilities or [])
    enabled = set(caps) if "all" in wanted else set(wanted)
    unknown = sorted(enabled - set(caps))
    if unknown:
        raise FactforgeError(f"task {name} has no capability {unknown[0][:60]!r}; "
                             f"capabilities: {', '.join(caps) or 'none'}")
    fixed: set[int] = set()
    for f in fixes or []:
        if f == "all":
            fixed |= set(fixable)
        elif not str(f).isdigit() or int(f) not in fixable:
            raise FactforgeError(f"task {name} has no deployable fix {str(f)[:20]!r}; "
                                 f"fixes (defect indices): {', '.join(map(str, fixable)) or 'none'}")
        else:
            fixed.add(int(f))
    return enabled, fixed


class ApiServer:
    """A uvicorn server for one `ApiState`, on a background thread."""

    def __init__(self, state: ApiState, *, host: str = "127.0.0.1", port: int = 0, uds: Optional[str | Path] = None):
        self.state = state
        self.host, self.port = host, port
        self.uds = Path(uds) if uds is not None else None
        self._server = None
        self._thread: Optional[threading.Thread] = None
        self._sock: Optional[socket.socket] = None

    @classmethod
    def from_pack(cls, pack_dir: Path | str, task_id: str, *, dev: bool = False, trial: int = 0, seed: int = 0,
                  clock: str = "virtual", admin_token: Optional[str] = None, domains_dirs: Optional[list] = None,
                  enabled: tuple = (), fixed: tuple = (), **kw) -> "ApiServer":
        """The task's API: its capabilities hidden but those in `enabled`, the defects in
        `fixed` out of play."""
        api, db, deployment = load_task(pack_dir, task_id, dev=dev, domains_dirs=domains_dirs)
        hidden = set(task_capabilities(Pack(Path(pack_dir)).json(task_id, "sealed", "task.json"))) - set(enabled)
        state = ApiState(api, db, deployment, task_id=task_id, trial=trial, seed=seed, mode="dev" if dev else "eval",
                         clock=clock, admin_token=admin_token, hidden=hidden, fixed=fixed)
        return cls(state, **kw)

    @classmethod
    def from_world(cls, world_key: str, deployment: Optional[Deployment] = None, *, db_seed: int = 0,
                   task_id: Optional[str] = None, trial: int = 0, seed: int = 0, mode: str = "eval",
                   clock: str = "virtual", **kw) -> "ApiServer":
        """A domain (or variant) API over its seed database, without a pack (tests,
        benchmarks, a developer trying a deployment)."""
        world = resolve(world_key)
        state = ApiState(world.api(), world.database(db_seed), deployment or clean_deployment(), task_id=task_id,
                         trial=trial, seed=seed, mode=mode, clock=clock)
        return cls(state, **kw)

    # ---- lifecycle --------------------------------------------------------------------
    def _bind(self) -> socket.socket:
        if self.uds is not None:
            self.uds.parent.mkdir(parents=True, exist_ok=True)
            if self.uds.exists() or self.uds.is_symlink():
                if not self.uds.is_socket():
                    raise FactforgeError("exists and is not a socket; refusing to replace it", self.uds)
                self.uds.unlink()
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(str(self.uds))
            os.chmod(self.uds, 0o660)
        else:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind((self.host, self.port))
            except OSError as e:
                s.close()
                raise FactforgeError(f"cannot listen on {self.host}:{self.port}: {e.strerror}") from None
            self.port = s.getsockname()[1]
        s.listen(128)
        return s

    def _config(self):
        import uvicorn  # noqa: PLC0415  (deferred: uvicorn, only when the API is served on a socket)

        return uvicorn.Config(build_app(self.state), log_level="warning", access_log=False, lifespan="off",
                              timeout_graceful_shutdown=2, limit_concurrency=256, server_header=False)

    @property
    def url(self) -> str:
        return uds_url(self.uds) if self.uds is not None else f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 20.0) -> "ApiServer":
        import uvicorn  # noqa: PLC0415  (deferred: uvicorn, only when the API is served on a socket)

        if self._thread is not None:
            return self
        self._sock = self._bind()
        self._server = uvicorn.Server(self._config())
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]},
                                        name=f"factforge-api-{self.state.api.domain}", daemon=True)
        self._thread.start()
        t0 = time.monotonic()
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() - t0 > timeout:
                self.stop()
                raise FactforgeError("the API server did not start")
            time.sleep(0.01)
        return self

    def quiesce(self, timeout: float = 5.0) -> bool:
        """Wait until every request already sent to this server is answered (call once its
        clients are dead, before a reset): a request of ours goes behind every connection
        queued before it, then every connection must close. False on timeout."""
        if self._server is None:
            return True
        deadline = time.monotonic() + timeout
        try:
            if self.uds is not None:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.settimeout(timeout)
                s.connect(str(self.uds))
            else:
                s = socket.create_connection((self.host, self.port), timeout=timeout)
            with s:
                s.sendall(b"GET /_health HTTP/1.1\r\nHost: quiesce\r\nConnection: close\r\n\r\n")
                while s.recv(4096):
                    pass
        except OSError:
            return False
        while self._server.server_state.connections:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)
        return True

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self._sock is not None:
            self._sock.close()
        if self.uds is not None and self.uds.is_socket():
            self.uds.unlink()
        self._server, self._thread, self._sock = None, None, None

    def serve_forever(self, ready: Optional[Callable[[], None]] = None) -> None:
        """Serve in the foreground until SIGINT or SIGTERM (the CLI). `ready` is called once
        the socket listens (connections made from then on are queued and answered)."""
        import uvicorn  # noqa: PLC0415  (deferred: uvicorn, only when the API is served on a socket)

        self._sock = self._bind()
        if threading.current_thread() is threading.main_thread():
            # uvicorn shuts down on SIGINT/SIGTERM, restores these handlers and re-raises the
            # signal: a no-op handler makes a requested stop a clean exit (status 0).
            for sig in (signal.SIGINT, signal.SIGTERM):
                signal.signal(sig, lambda *_: None)
        if ready is not None:
            ready()
        try:
            uvicorn.Server(self._config()).run(sockets=[self._sock])
        finally:
            self._sock.close()
            if self.uds is not None and self.uds.is_socket():
                self.uds.unlink()

    def __enter__(self) -> "ApiServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def describe(server: ApiServer) -> str:
    s = server.state
    return json.dumps({"url": server.url, "domain": s.api.domain, "deployment": s.deployment.id,
                       "defects": s.deployment.kinds(), "clock": s.clock.mode,
                       "mode": s.layer.runtime.mode, "task": s.layer.runtime.task_id})
