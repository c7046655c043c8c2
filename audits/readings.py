"""The values found in a delivered file's extracted text, found once per text and kept.

Every audit that matches facts reads a file through a `facts.match.TextIndex`, whose cost is
finding every typed value in the text (`facts.values.find_values`: about 70% of the
recoverability audit). Recoverability (in the build's process) and difficulty (on the pool)
each read every file, and a one-value edit leaves all but a few texts unchanged. So the
values of a text are kept in the workspace cache, content-addressed: the key is the text
itself (normalised as `TextIndex` normalises it), the currency, and the code fingerprint of
the matcher and value scanner (`transforms.fingerprint.code_fingerprint` of `facts.match`:
its source and every project module it imports), so a scanner change never reuses stale
values. The extraction step finds them on the pool right after reading a file; the audits
then only load them, and a rebuild after an edit loads them for every unchanged text.

A `TextIndex` built from cached values is the same as one built from the text: same values,
same spans, in the same order (tested); reports are byte-identical.
"""
from __future__ import annotations

import os
import pickle
import uuid
from functools import lru_cache
from pathlib import Path
from typing import Optional

from facts.hashing import sha256_hex
from facts.match import TextIndex, normalise_text
from facts.values import find_values
from transforms.fingerprint import code_fingerprint

LAYOUT = "values-v1"  # folder under the cache


@lru_cache(maxsize=1)
def _fingerprint() -> str:
    return code_fingerprint("facts.match")


def values_key(text: str, currency: str) -> str:
    return sha256_hex(f"{LAYOUT}\0{_fingerprint()}\0{currency}\0{text}")


def _path(cache_dir: Path, key: str) -> Path:
    return Path(cache_dir) / LAYOUT / key[:2] / f"{key}.pkl"


def found_in(text: str, currency: str = "USD", cache_dir: Optional[Path] = None) -> tuple:
    """`find_values` of the normalised text, from the cache under `cache_dir` when it holds
    them (else found and stored there, atomically)."""
    norm = normalise_text(text)
    if cache_dir is None:
        return tuple(find_values(norm, currency=currency))
    path = _path(Path(cache_dir), values_key(norm, currency))
    try:
        with open(path, "rb") as f:
            return pickle.load(f)
    except (OSError, EOFError, ValueError, pickle.UnpicklingError):
        pass
    found = tuple(find_values(norm, currency=currency))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{uuid.uuid4().hex}.tmp")
    with open(tmp, "wb") as f:
        pickle.dump(found, f, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, path)
    return found


def text_index(text: str, currency: str = "USD", cache_dir: Optional[Path] = None) -> TextIndex:
    """`TextIndex(text, currency)`, its values from the cache when `cache_dir` is given."""
    return TextIndex(text, currency=currency, found=found_in(text, currency, cache_dir))
