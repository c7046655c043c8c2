"""Names that become path components: a domain pack's name and a variant's name.

They name folders (`bundles/<domain>/...`), partition keys and bundle versions
(`0.1.0+<variant>.<hash>`), so they are restricted to lowercase letters, digits and
underscores, start with a letter (after one optional leading underscore, which marks a test
domain) and have at most 40 characters. Nothing that passes can leave a folder it is joined
to (no `/`, no `..`, no empty name)."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Optional

from .errors import FactforgeError

NAME_RE = re.compile(r"^_?[a-z][a-z0-9_]{0,39}$")


def check_name(name: Any, what: str = "domain name", file: str | Path | None = None,
               line: Optional[int] = None) -> str:
    """`name` if it is a valid pack or variant name, else FactforgeError naming the file and line."""
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise FactforgeError(f"invalid {what} {name!r}: use lowercase letters, digits and underscores "
                             "(a leading underscore marks a test domain), at most 40 characters", file, line)
    return name
