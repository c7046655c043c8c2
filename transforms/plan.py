"""The evidence plan's records: which facts an artifact carries and how (`FactMention`), the
wrong or old values it mentions (`Distractor`), multi-hop routes through a key file
(`Route`, `Hop`), and the artifact itself (`ArtifactSpec`). The planner
(`transforms.planner`) writes them; renderers read them."""
from __future__ import annotations

import random
from typing import Literal, Optional

from pydantic import Field

from facts.strict import StrictModel

PLAN_SCHEMA_VERSION = "2.1"


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

    `rendition`, for a value stated plainly (resolved by date, version, authority or not at
    all): "canonical" when the records word the fact in the policy's words (a quoted fact), so
    its old figure is said in the same words as the current one; "voiced" otherwise.
    """

    fact_id: str
    slot: str
    text: str  # the wrong value's surface form, e.g. "$50"
    role: Literal["distractor", "superseded", "proposal", "contested"]
    date: Optional[str] = None
    resolution: Literal["hedge", "correction", "date", "version", "authority", "none"] = "hedge"
    rendition: Literal["canonical", "voiced"] = "voiced"


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
