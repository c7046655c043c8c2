"""The developer's own model traffic in an engagement: the provider proxy's upstreams and keys.

The keys come from the engage process's environment (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`) and
are held by the `ModelProxy` only; the developer's boundary is started with an empty
environment, so they are never inside it. `--developer-upstream URL` sends both wires to URL
instead of the providers (a compatible gateway, or the scripted model server in tests), with
the same keys when they are set.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping, Optional

from facts.errors import FactforgeError

from .modelproxy import ModelProxy, Upstream

KEY_VARS = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
PROVIDER_URLS = {"anthropic": "https://api.anthropic.com", "openai": "https://api.openai.com"}
SOCKET = "model.sock"


def upstreams(override: Optional[str], environ: Mapping[str, str] = os.environ) -> dict[str, Upstream]:
    """An upstream per provider with a key in `environ`, or every provider at `override`."""
    if override is not None and not override.startswith(("http://", "https://")):
        raise FactforgeError(f"--developer-upstream {override!r}: give an http:// or https:// URL")
    out = {}
    for kind, var in KEY_VARS.items():
        key = environ.get(var) or ""
        if key or override:
            out[kind] = Upstream(kind, override or PROVIDER_URLS[kind], key)
    return out


def start_proxy(ups: dict[str, Upstream], needs: Optional[str], sockdir: Path, record_dir: Path
                ) -> Optional[ModelProxy]:
    """The proxy on `sockdir/model.sock`, or None when there is nothing to reach; `needs` is the
    provider a coding agent speaks (FactforgeError when it has no upstream)."""
    if needs is not None and needs not in ups:
        raise FactforgeError(f"the developer speaks the {needs} wire: set {KEY_VARS[needs]} in the environment, "
                             "or give --developer-upstream URL")
    if not ups:
        return None
    return ModelProxy(ups, record_dir).start(Path(sockdir) / SOCKET)


def metering(proxy: Optional[ModelProxy]) -> Optional[dict]:
    """What the record keeps of the developer's model traffic (None without a proxy)."""
    if proxy is None:
        return None
    proxy.settle(10.0)
    return {**proxy.summary(), "records": "model_calls.jsonl"}
