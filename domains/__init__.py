"""Domain packs: one folder per business (`domains.pack` describes a pack's files; the
domain contract is `domains.contract`). The names below are the package's public face."""
from __future__ import annotations

from facts.names import NAME_RE, check_name  # noqa: F401  (pack and variant names)

from .pack import (BUILTIN_DIR, ENV_VAR, Brand, BrokenPack, DomainInfo, DomainPack, PackFile,  # noqa: F401
                   discover, get_pack, load_pack, scan, search_dirs)
