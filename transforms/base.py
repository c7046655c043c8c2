"""The transformer contract.

One module per artifact kind. A kind declares its `family` and `kind` (persisted as the
string "family/kind", never as a Python path), the file extension, the modality its
extraction uses, and how many facts one artifact of it can carry. It renders a real file
from an `ArtifactSpec` (what the evidence planner decided) through a *writer* (which words
the content), and extracts text back from the delivered file; the audits use that
extraction, never the text the renderer was given.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Optional

from pydantic import Field

from facts.strict import StrictModel

from .plan import ArtifactSpec

if TYPE_CHECKING:  # pragma: no cover
    from domains import DomainPack
    from facts.models import Fact

    from .writer_api import Writer


@dataclass
class RenderContext:
    """Everything a renderer may use besides its spec."""

    pack: "DomainPack"
    facts: dict[str, "Fact"]
    writer: "Writer"
    db: dict[str, Any] = field(default_factory=dict)
    workdir: Optional[Path] = None  # scratch space (TTS temp files etc.)
    # Recordings hear their own audio (transforms.hearing): `speech_words` are the words the
    # build adds to every speech vocabulary (a variant's base brand terms; part of the render
    # key of speech kinds), `extraction_cache` the build's cache root where the extraction of
    # the delivered file is filed for the audit (None: not filed), `notes` what a render
    # reports back (filled per unit by transforms.render: "heard", "revoiced").
    speech_words: tuple[str, ...] = ()
    extraction_cache: Optional[Path] = None
    notes: Optional[dict[str, Any]] = None

    def fact(self, fact_id: str) -> "Fact":
        return self.facts[fact_id]


@dataclass
class ExtractContext:
    """What an extractor may know besides the file: the candidate phrases of the domain
    (for grammar-restricted speech recognition). Never the text the renderer was given."""

    candidates: list[str] = field(default_factory=list)
    workdir: Optional[Path] = None


class Extraction(StrictModel):
    text: str
    extractor: str       # e.g. "pdf-text", "ocr-tesseract", "asr-pocketsphinx-grammar"
    parts: dict[str, str] = Field(default_factory=dict)  # e.g. {"frames": ..., "audio": ...}


class Transformer(ABC):
    family: ClassVar[str]
    kind: ClassVar[str]
    ext: ClassVar[str]            # ".txt", ".eml", ".pdf", ...
    modality: ClassVar[str]       # "text", "eml", "pdf", "xlsx", "csv", "html", "json", "png", "scan", "wav", "mp4", "vtt", "docx"
    max_facts: ClassVar[int] = 6  # facts one artifact may carry authoritatively
    min_facts: ClassVar[int] = 1
    weight: ClassVar[float] = 1.0  # relative share of carriers the planner gives this kind
    supports_distractors: ClassVar[bool] = True
    # A wrong value said as someone's belief or a rumour ("I heard the fee is $40") belongs
    # where people talk or are quoted; a kind that states only current rules in its own voice
    # (a slide, a process map) sets this False and the planner gives the wrong value to a
    # conversation instead. Superseded values (dated, overridden) it may still show.
    rumours: ClassVar[bool] = True
    # Kinds of fact (FactKind values) the kind can carry, None for any: a process map shows
    # procedure steps (decisions and actions), not catalog values.
    fact_kinds: ClassVar[Optional[frozenset[str]]] = None
    # Whether the kind words a fact in its own way (a "voiced" rendition); a process map
    # quotes the procedure.
    voices: ClassVar[bool] = True
    # Whether the kind prints catalog cells (a value per product and attribute) in schedule
    # grids: a grid's cell is a label and a figure, nobody's sentence, so such a mention is
    # planned canonical whatever the fact's draw (`plan_roles.rendition_in`).
    tabulates_cells: ClassVar[bool] = False
    description: ClassVar[str] = ""

    @classmethod
    def key(cls) -> str:
        return f"{cls.family}/{cls.kind}"

    @classmethod
    def selective(cls) -> bool:
        """Whether the kind carries only some facts (`carries`): the planner hands those their
        facts before the others, a section's together and in order."""
        return cls.fact_kinds is not None

    @classmethod
    def carries(cls, fact: "Fact") -> bool:
        """Whether an artifact of this kind can carry `fact` authoritatively: by default any fact
        of its `fact_kinds`; a kind that shows values in a form of its own (a chart's labelled
        bars) narrows it further."""
        return cls.fact_kinds is None or fact.kind.value in cls.fact_kinds

    @abstractmethod
    def render(self, spec: ArtifactSpec, ctx: RenderContext, out: Path) -> None:
        """Write the file for `spec` to `out` (a temporary path; the caller renames it).
        Must be deterministic: same spec and context give byte-identical output."""

    @abstractmethod
    def extract(self, path: Path, ctx: ExtractContext) -> Extraction:
        """Read text back from the delivered file (text layer, parser, OCR, ASR)."""
