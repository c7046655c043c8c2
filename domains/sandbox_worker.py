"""The worker side of `domains.sandbox`: the loop a pack's sandbox subprocess runs.

`domains.sandbox` starts `python -c "from domains.sandbox_worker import serve; serve()" FOLDER`;
this module loads the pack's code (`domains.contract.load_code`) and answers each request,
turning every failure into one line that names the pack file and line.
"""
from __future__ import annotations

import os
import pickle
import struct
import sys
import traceback
from pathlib import Path
from typing import Any, Optional

from facts.errors import FactforgeError

from .contract import load_code
from .sandbox import label


def _where(exc: BaseException, folder: Path) -> tuple[Optional[str], Optional[int]]:
    """The pack file and line an exception belongs to: the compiler's line for a syntax error
    in the pack, else the innermost traceback frame inside the pack's folder."""
    if isinstance(exc, SyntaxError) and exc.filename:
        f = Path(exc.filename).resolve()
        if folder in f.parents:
            return str(f), exc.lineno
    best: tuple[Optional[str], Optional[int]] = (None, None)
    for fr in traceback.extract_tb(exc.__traceback__):
        if fr.filename and not fr.filename.startswith("<"):
            f = Path(fr.filename).resolve()
            if folder in f.parents:
                best = (str(f), fr.lineno)
    return best


def _describe(exc: BaseException) -> str:
    msg = exc.msg if isinstance(exc, SyntaxError) and exc.msg else str(exc)
    first = next((ln.strip() for ln in msg.splitlines() if ln.strip()), "")
    return f"{type(exc).__name__}: {first[:300]}" if first else type(exc).__name__


def _answer(name: Optional[str], args: tuple, kwargs: dict, folder: Path) -> tuple[str, Any]:
    what = label(name)
    try:
        code = load_code(folder)
        if name is None:
            result = None
        else:
            obj = getattr(code, name, None)
            if obj is None:
                return "error", (f"the pack's DOMAIN has no {name}", None, None)
            result = obj(*args, **kwargs) if callable(obj) else obj
    except FactforgeError as e:
        return "error", (f"{e.problem} (in {what})", e.file, e.line)
    except BaseException as e:  # noqa: BLE001  (SystemExit and KeyboardInterrupt of pack code too)
        file, line = _where(e, folder)
        return "error", (f"{_describe(e)} (in {what})", file, line)
    try:
        return "ok", pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as e:  # noqa: BLE001
        return "error", (f"{what} returned a value that cannot be passed back ({type(e).__name__}: {e})",
                         None, None)


def serve() -> None:
    """Worker loop: requests (length-prefixed pickles) in on stdin, answers out on the
    original stdout; the pack's own prints go to stderr (/dev/null). Ends at EOF."""
    folder = Path(sys.argv[1])
    inp = sys.stdin.buffer
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    while True:
        head = inp.read(8)
        if len(head) < 8:
            return
        (size,) = struct.unpack(">Q", head)
        name, args, kwargs = pickle.loads(inp.read(size))
        reply = pickle.dumps(_answer(name, args, kwargs, folder), protocol=pickle.HIGHEST_PROTOCOL)
        out.write(struct.pack(">Q", len(reply)) + reply)
        out.flush()
