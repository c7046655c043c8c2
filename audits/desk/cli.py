"""`factforge audit serve` and `factforge browse`: the two commands that start the desk.

Both import FastAPI and uvicorn only when run, so the rest of the CLI starts as fast as before.
"""
from __future__ import annotations

import math
import os
import secrets
import sys
import webbrowser
from pathlib import Path
from typing import List, Optional

import typer

from audits.queue import default_db_path
from audits.queue_cli import DB_HELP

CACHE_HELP = ("Extraction cache of the builds (transcripts, OCR text) and where rendered PDF pages go "
              "(default: $FACTFORGE_WORKSPACE/cache, else ~/.factforge/cache).")
LOOPBACK = ("127.0.0.1", "localhost", "::1")
ALLOW_HOST_HELP = ("Also answer requests that name this host (the name reviewers type in the address bar; "
                   "repeatable). Loopback names and the --host address are always answered, other names refused.")


def default_cache_dir() -> Path:
    return Path(os.environ.get("FACTFORGE_WORKSPACE", Path.home() / ".factforge")) / "cache"


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise typer.BadParameter(f"{value:g} is not a finite number")
    return value


def serve(host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on."),
          port: int = typer.Option(8765, "--port", min=0, max=65535, help="Port (0 picks a free one)."),
          db: Optional[Path] = typer.Option(None, "--db", help=DB_HELP),
          cache: Optional[Path] = typer.Option(None, "--cache", help=CACHE_HELP),
          admin_token: Optional[str] = typer.Option(None, "--admin-token", envvar="FACTFORGE_DESK_TOKEN",
                                                    help="Admin token (default: a new random one, printed)."),
          lease_minutes: float = typer.Option(30.0, "--lease-minutes", min=1.0, callback=_finite,
                                              help="How long an item stays leased to the reviewer who opened it."),
          bundle: List[Path] = typer.Option([], "--bundle", metavar="<path>", help="Also browse this bundle (repeatable)."),
          allow_host: List[str] = typer.Option([], "--allow-host", metavar="<name>", help=ALLOW_HOST_HELP)) -> None:
    """Serve the review desk: reviewers work the audit queue in the browser.

    Example: factforge audit serve --port 8765 --bundle out/bundles/_mock
    """
    from .app import DeskConfig, create_app  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)
    from .bundles import discover_bundles  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)
    from .server import bind, serve_forever, url_of  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)

    token = admin_token or secrets.token_urlsafe(18)
    app = create_app(DeskConfig(db=db or default_db_path(), bundles=discover_bundles(bundle) if bundle else [],
                                cache_dir=cache or default_cache_dir(), admin_token=token,
                                lease_seconds=lease_minutes * 60, host=host, allow_hosts=allow_host))
    sock = bind(host, port)
    url = url_of(sock)
    typer.echo(f"review desk: {url}/  (queue {db or default_db_path()})")
    typer.echo(f"admin view:  {url}/admin?token={token}")
    if host not in LOOPBACK:
        typer.echo("warning: reviewers sign in by name only; anyone who can reach this address can review", err=True)
    typer.echo("Ctrl-C stops the server.")
    serve_forever(app, sock)


def browse(bundles: List[Path] = typer.Argument(..., help="A bundle directory, or a folder holding bundles."),
           host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on."),
           port: int = typer.Option(0, "--port", min=0, max=65535, help="Port (0 picks a free one)."),
           cache: Optional[Path] = typer.Option(None, "--cache", help=CACHE_HELP),
           open_browser: bool = typer.Option(True, "--open/--no-open",
                                             help="Open a web browser (only where a desktop is available)."),
           allow_host: List[str] = typer.Option([], "--allow-host", metavar="<name>", help=ALLOW_HOST_HELP)) -> None:
    """Browse bundles read-only in the web browser: files, fact index, reports.

    Example: factforge browse out/bundles/_mock --no-open
    """
    from .app import DeskConfig, create_app  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)
    from .bundles import discover_bundles  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)
    from .server import bind, serve_forever, url_of  # noqa: PLC0415  (deferred: keeps `factforge --help` fast)

    found = discover_bundles(bundles)
    app = create_app(DeskConfig(db=None, bundles=found, cache_dir=cache or default_cache_dir(), host=host,
                                allow_hosts=allow_host))
    sock = bind(host, port)
    url = url_of(sock) + "/bundles"
    if len(found) == 1:
        url += "/" + next(iter(app.state.desk.bundles)).key
    typer.echo(f"browsing {len(found)} bundle(s): {url}")
    typer.echo("Ctrl-C stops the server.")
    has_desktop = sys.platform in ("darwin", "win32") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    if open_browser and has_desktop:
        webbrowser.open(url)
    serve_forever(app, sock)
