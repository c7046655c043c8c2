"""What the audits already read from a file: the speech transcript of a call, the OCR text of
a screenshot, the text layer of a PDF.

The desk never re-runs speech recognition or OCR on a page view. It finds the extraction the
recoverability audit stored in the workspace's extraction cache, under the same key the audit
used (file sha256, kind, recognition grammar rebuilt from the bundle's plan and facts). When
the cache does not hold it (the bundle was built on another machine, or the cache was
cleared), the viewer says so and offers to run the extractor once; the result goes into the
same cache.
"""
from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Optional

from pydantic import ValidationError

from facts.errors import FactforgeError
from facts.models import FactSet

from .bundles import Bundle


@dataclass
class Extracted:
    status: str                      # "cached", "missing" (not in the cache) or "unavailable"
    text: str = ""
    extractor: str = ""
    parts: dict[str, str] = field(default_factory=dict)
    reason: str = ""


@lru_cache(maxsize=32)
def _models(root: str, content_hash: str):
    data = json.loads((Path(root) / "facts.json").read_text(encoding="utf-8"))
    data.pop("hash", None)
    return FactSet.model_validate(data)


def _spec_and_facts(bundle: Bundle, artifact_id: str):
    from transforms.plan import ArtifactSpec  # noqa: PLC0415  (deferred: transforms, only when an extraction is shown)

    spec = bundle.spec(artifact_id)
    if spec is None:
        raise FactforgeError(f"artifact '{artifact_id}' is not in plan.json")
    try:
        return (ArtifactSpec.model_validate(spec),
                _models(str(bundle.root), str(bundle.manifest.get("content_hash", ""))))
    except (ValidationError, FileNotFoundError, json.JSONDecodeError) as e:
        raise FactforgeError(f"plan.json or facts.json is not readable by this factforge version "
                             f"({str(e).splitlines()[0]})", bundle.root) from None


_compute_lock = threading.Lock()
_hits: "OrderedDict[tuple[str, str, str, str], Extracted]" = OrderedDict()
HITS_MEMO_SIZE = 1024


def lookup(bundle: Bundle, artifact_id: str, cache_dir: Optional[Path], compute: bool = False) -> Extracted:
    """The stored extraction of an artifact. With `compute`, run the extractor when the cache
    misses (one at a time: recognisers are CPU-heavy) and store the result."""
    from audits.extraction import cached, extract_all, jobs_for  # noqa: PLC0415  (deferred: the extractors)

    if cache_dir is None:
        return Extracted(status="unavailable", reason="no extraction cache configured (--cache)")
    entry = bundle.by_artifact(artifact_id)
    if entry is None:
        return Extracted(status="unavailable", reason=f"artifact {artifact_id} is not in the manifest")
    key = (str(bundle.root), artifact_id, entry["sha256"], str(cache_dir))
    if key in _hits:  # a found entry never changes (the cache is content-addressed)
        return _hits[key]
    try:
        spec, factset = _spec_and_facts(bundle, artifact_id)
        (job,) = jobs_for([spec], {spec.id: (bundle.path_of(entry["path"]), entry["sha256"])}, factset.by_id())
        ex = cached(job, cache_dir)
        if ex is None and compute:
            with _compute_lock:
                ex = extract_all([job], cache_dir).by_id[spec.id]
    except FactforgeError as e:
        return Extracted(status="unavailable", reason=e.render())
    if ex is None:
        return Extracted(status="missing", reason=f"not in the extraction cache {cache_dir}")
    found = _hits[key] = Extracted(status="cached", text=ex.text, extractor=ex.extractor, parts=dict(ex.parts))
    while len(_hits) > HITS_MEMO_SIZE:
        _hits.popitem(last=False)
    return found
