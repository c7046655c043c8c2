"""The transformer contract.

One module per artifact kind. A kind declares its `family` and `kind` (persisted as the
string "family/kind", never as a Python path), the file extension, the modality its
extraction uses, and how many facts one artifact of it can carry. It renders a real file
from an `ArtifactSpec` (what the evidence planner decided) through a *writer* (which words
the content), and extracts text back from the delivered file; the audits use that
extraction, never the text the renderer was given.
"""
from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Optional

from pydantic import Field

from facts.strict import StrictModel

if TYPE_CHECKING:  # pragma: no cover
    from domains import DomainPack
    from facts.models import Fact
    from .writers import Writer

PLAN_SCHEMA_VERSION = "2.0"


class FactMention(StrictModel):
    """A fact an artifact states, in a role:

    - "carrier": the authoritative statement (what the recoverability gate proves);
    - "echo": the current value restated elsewhere (an agent telling a customer, an older
      version of a document whose figure did not change);
    - "partial": the value without its condition ("it's $75 now"), or the condition without
      the value;
    - "case": the rule applied to a customer's record (a ledger row charging the fee for that
      customer's tier and cabin), so the rule can be induced from cases;
    - "hop": one part of a multi-hop route (`route`: the route's id; `part`: "key", the fact
      with its value given by reference, or "table", the value under the reference).
    """

    fact_id: str
    rendition: Literal["canonical", "voiced"] = "canonical"
    role: Literal["carrier", "echo", "partial", "case", "hop"] = "carrier"
    route: Optional[str] = None
    part: Optional[Literal["key", "table"]] = None


class Distractor(StrictModel):
    """A non-authoritative value placed in an artifact.

    role "distractor": plausible but wrong (a customer's mistaken belief, a rumour, an agent's
    guess); "superseded": an older value, in force until `date`; "proposal": a value someone
    proposed that was not adopted; "contested": a conflicting value in an authoritative-looking
    record that nothing in the records resolves (task packs settle it through the client).

    `resolution` says what tells a reader it is not current, and what the audit proves from
    the delivered files: "hedge" (an explicit marker in the sentence: "I thought", "no
    longer"), "correction" (the current value follows later in the same file), "date" (this
    file is dated, visibly, before every authoritative carrier of the fact), "version" (an
    older version of a document series: lower version, earlier effective date), "authority"
    (the carrier shows an owner's approval; this mention is someone else's word), "none"
    (contested).
    """

    fact_id: str
    slot: str
    text: str  # the wrong value's surface form, e.g. "$50"
    role: Literal["distractor", "superseded", "proposal", "contested"]
    date: Optional[str] = None
    resolution: Literal["hedge", "correction", "date", "version", "authority", "none"] = "hedge"


class Hop(StrictModel):
    artifact_id: str
    part: Literal["key", "table"]


class Route(StrictModel):
    """A multi-hop route: the fact's value follows only from combining files. Kind "reference":
    the key file states the fact with its value given by a code ("the amount under fee code
    FEE-12 of the fee schedule"); the table file lists the code with the value and no anchor
    of the fact. `label` is what the table row shows beside the code (a catalog cell's
    attribute, or a short neutral description)."""

    id: str
    fact_id: str
    kind: Literal["reference"] = "reference"
    code: str
    label: str = ""
    schedule: str = ""  # the table's title as the key file names it
    hops: list[Hop] = Field(default_factory=list)


class ArtifactSpec(StrictModel):
    id: str              # stable within a plan, e.g. "chat_transcript-0003"
    kind: str            # "conversations/chat_transcript"
    path: str            # bundle-relative path, e.g. "evidence/conversations/chat-0003.txt"
    seed: int
    date: str            # ISO date the record is dated
    title: str = ""
    facts: list[FactMention] = Field(default_factory=list)
    distractors: list[Distractor] = Field(default_factory=list)
    noise: bool = False  # no authoritative facts: realistic filler
    series: Optional[str] = None   # a document series ("fee schedule"): versions of one document
    version: Optional[int] = None  # this file's version in its series (1 = oldest)
    routes: list[Route] = Field(default_factory=list)  # routes this file holds a hop of
    size: Optional[int] = None     # how much routine traffic (messages, rows, threads): the planner's volume

    @property
    def fact_ids(self) -> list[str]:
        """Facts this file carries authoritatively (the recoverability gate's list)."""
        return [m.fact_id for m in self.facts if m.role == "carrier"]

    @property
    def mentioned_ids(self) -> list[str]:
        """Every fact this file names, in any role (carrier, echo, partial, case, hop, a wrong or
        old value)."""
        return list(dict.fromkeys([m.fact_id for m in self.facts] + [d.fact_id for d in self.distractors]))

    @property
    def quoted_ids(self) -> list[str]:
        """Facts whose policy statements this file may quote word for word: those it states
        canonically, and those it names with a wrong or old value (said in their own words,
        the value swapped) unless it voices them. A 6-word run a voiced statement shares with
        one of them is that fact's wording, not a copy (`audits.lints`, `common.Voiced`)."""
        voiced = {m.fact_id for m in self.facts if m.rendition == "voiced"}
        return list(dict.fromkeys([m.fact_id for m in self.facts if m.rendition == "canonical"]
                                  + [d.fact_id for d in self.distractors if d.fact_id not in voiced]))

    def carriers(self) -> list[FactMention]:
        return [m for m in self.facts if m.role == "carrier"]

    def rng(self, salt: str = "") -> random.Random:
        return random.Random(f"{self.seed}:{self.id}:{salt}")


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
