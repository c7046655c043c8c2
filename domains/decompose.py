"""A pack's policy files -> one FactSet (the built-in decomposer or the LLM one), cached
in-process by the content of the files. Lives here, not in `facts/`, because it reads a
pack: the kernel decomposes text and knows nothing of packs."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional, Protocol

from facts.decompose import decompose_markdown
from facts.errors import FactforgeError
from facts.hashing import content_hash, sha256_hex
from facts.markdown import decode_text
from facts.models import FactSet



class PolicySource(Protocol):
    """What decomposing reads of a pack (a `domains.pack.DomainPack`)."""

    @property
    def path(self) -> Path: ...

    @property
    def name(self) -> str: ...

    @property
    def info(self) -> Any: ...  # `.currency`

    def policy_files(self) -> list[Path]: ...

_CACHE: dict[str, FactSet] = {}


def decompose_pack(pack: PolicySource, decomposer: str = "builtin", model: Optional[str] = None,
                   mock_response: Optional[str] = None) -> FactSet:
    """Decompose every policy file of a pack (source paths relative to the pack folder).

    Cached in-process by the content hash of the files, the decomposer and its model."""
    if decomposer not in ("builtin", "llm"):
        raise FactforgeError(f"unknown decomposer {decomposer!r}; available: builtin, llm")
    files = pack.policy_files()
    root = Path(pack.path)
    datas = [(p.relative_to(root).as_posix(), p.read_bytes()) for p in files]
    if decomposer == "llm":
        model = model or os.environ.get("FACTFORGE_LLM_MODEL", "gpt-4o-mini")
    key = content_hash({"domain": pack.name, "currency": pack.info.currency, "decomposer": decomposer,
                        "model": model if decomposer == "llm" else None, "mock": mock_response,
                        "files": [(rel, sha256_hex(data)) for rel, data in datas]})
    if key not in _CACHE:
        occ: dict = {}
        facts, unparsed = [], []
        for rel, data in datas:
            if decomposer == "llm":
                from facts.llm import decompose_markdown_llm  # noqa: PLC0415
                fs = decompose_markdown_llm(decode_text(data, rel), pack.name, rel, pack.info.currency, model=model,
                                            mock_response=mock_response, _occurrences=occ)
            else:
                fs = decompose_markdown(data, pack.name, rel, pack.info.currency, _occurrences=occ)
            facts.extend(fs.facts)
            unparsed.extend(fs.unparsed)
        if not facts:
            rel = datas[0][0]
            why = f"all {len(unparsed)} of its lines are unparsed" if unparsed else "it is empty"
            raise FactforgeError(f"the policy states no facts ({why})", root / rel, 1)
        source = datas[0][0] if len(datas) == 1 else "policy"
        _CACHE[key] = FactSet(domain=pack.name, source_file=source, facts=facts, unparsed=unparsed,
                              decomposer=decomposer)
    return _CACHE[key].model_copy(deep=True)
