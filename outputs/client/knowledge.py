"""What a task's client knows (the sealed `client.json` of a task pack) and how its facts
are looked up: the models, the fact index over the domain's facts, and the reveal detector
that the leak check uses.

`client.json` (schema 1.0, written by the task-pack build):
`{schema_version, enabled, turn_quota, held[{fact_id, section, statement, values}],
confirmable[...same], contested[{...same, conflicting_statement, conflicting_values,
current_in, conflicting_in}]}`, and, for a task that has them, `capabilities[{operation,
need, method, path, summary}]` (operations the deployment hides until the client switches
them on), `can_deploy_fix[defect index]` (defects the client fixes once convinced),
`tiers{fact id: pointer | caveat | exact}` (how a held fact is discovered) and
`stakeholders[{role, title, persona, turn_quota, governs, held, confirmable, habits}]` (the
other people the developer may ask: `StakeholderBrief`).
"""
from __future__ import annotations

from typing import Literal, Optional

from pydantic import Field

from facts.models import Fact, FactSet, Slot, replace_value
from facts.match import content_words, matches
from facts.strict import StrictModel
from facts.values import parse_slots

from .match import FactIndex

KNOWLEDGE_SCHEMA_VERSION = "1.0"
Role = Literal["held", "confirmable", "contested"]


class KnownFact(StrictModel):
    fact_id: str
    section: list[str]
    statement: str
    values: list[str] = Field(default_factory=list)


class ContestedFact(KnownFact):
    conflicting_statement: str
    conflicting_values: list[str] = Field(default_factory=list)
    current_in: list[str] = Field(default_factory=list)
    conflicting_in: list[str] = Field(default_factory=list)


class CapabilityBrief(StrictModel):
    operation: str
    need: str
    method: str
    path: str
    summary: str = ""


class StakeholderBrief(StrictModel):
    """Another person of the business: what they know, the facts they state by habit with their
    own value (`habits`: each with that value's statement), the sections their word decides."""
    role: str
    title: str
    persona: str = ""
    turn_quota: int = Field(8, ge=0)
    governs: list[str] = Field(default_factory=list)
    held: list[KnownFact] = Field(default_factory=list)
    confirmable: list[KnownFact] = Field(default_factory=list)
    habits: list[KnownFact] = Field(default_factory=list)
    tiers: dict[str, Literal["pointer", "caveat", "exact"]] = Field(default_factory=dict)

    def knowledge(self) -> "ClientKnowledge":
        """Their knowledge as a client's: a habit is held, with their value."""
        return ClientKnowledge(turn_quota=self.turn_quota, held=[*self.held, *self.habits],
                               confirmable=list(self.confirmable), tiers=dict(self.tiers))


class ClientKnowledge(StrictModel):
    schema_version: Literal["1.0"] = KNOWLEDGE_SCHEMA_VERSION
    enabled: bool = True
    turn_quota: int = Field(20, ge=0)
    held: list[KnownFact] = Field(default_factory=list)
    confirmable: list[KnownFact] = Field(default_factory=list)
    contested: list[ContestedFact] = Field(default_factory=list)
    capabilities: list[CapabilityBrief] = Field(default_factory=list)
    can_deploy_fix: list[int] = Field(default_factory=list)
    tiers: dict[str, Literal["pointer", "caveat", "exact"]] = Field(default_factory=dict)
    stakeholders: list[StakeholderBrief] = Field(default_factory=list)

    def directory(self) -> dict[str, tuple[str, str]]:
        """Fact id -> (role, title) of the person who knows it (the owner or a stakeholder; not
        a habit), in a task with stakeholders; {} otherwise."""
        if not self.stakeholders:
            return {}
        out = {f.fact_id: ("owner", "the owner") for role in ("held", "confirmable", "contested")
               for f in getattr(self, role)}
        for p in self.stakeholders:
            out.update({f.fact_id: (p.role, p.title) for f in [*p.held, *p.confirmable]})
        return out

    def governance(self) -> dict[str, tuple[str, str]]:
        """Top-level policy section -> (role, title) of the stakeholder whose word decides it
        (every other section is the owner's)."""
        return {g: (p.role, p.title) for p in self.stakeholders for g in p.governs}

    def roles(self) -> dict[str, Role]:
        out: dict[str, Role] = {}
        for role in ("held", "confirmable", "contested"):
            for f in getattr(self, role):
                out[f.fact_id] = role  # type: ignore[assignment]
        return out

    def known(self) -> dict[str, KnownFact]:
        return {f.fact_id: f for role in ("held", "confirmable", "contested") for f in getattr(self, role)}


def _template(statement: str, slots: list[Slot]) -> str:
    t = statement
    for s in sorted(slots, key=lambda s: -len(s.text)):
        if s.text:
            t = replace_value(t, s.text, "{" + s.type.value + "}", count=0)
    return t


class Knowledge:
    """A client's knowledge with its facts resolved: full `Fact`s (from the domain's FactSet
    when given, else parsed from the statement) and a `FactIndex` over every fact of the
    domain (or, without a FactSet, over the client's facts only)."""

    def __init__(self, data: ClientKnowledge, facts: Optional[FactSet] = None):
        self.data = data
        self.roles = data.roles()
        known = data.known()
        by_id = facts.by_id() if facts is not None else {}
        self.facts: dict[str, Fact] = {}
        for fid, k in known.items():
            f = by_id.get(fid)
            if f is None or f.statement != k.statement:
                f = Fact.model_construct(id=fid, domain="", section=list(k.section), statement=k.statement,
                                         slots=parse_slots(k.statement), anchors=content_words(k.statement)[:6],
                                         conditions=[])
            self.facts[fid] = f
        entries = [(f.id, f.template(), list(f.anchors), list(f.section)) for f in by_id.values() if f.id not in known]
        entries += [(fid, _template(f.statement, f.slots), list(f.anchors), list(f.section))
                    for fid, f in self.facts.items()]
        self.index = FactIndex(entries)

    @property
    def held(self) -> list[str]:
        return [f.fact_id for f in self.data.held]

    def role(self, fact_id: str) -> Optional[Role]:
        return self.roles.get(fact_id)

    def revealed(self, text: str, roles: tuple[Role, ...] = ("held",)) -> list[str]:
        """The client facts (of `roles`) a text carries, by the project's one fact matcher
        (`facts.match`: every numeric value in any surface form, with enough of the fact's
        anchors nearby). Independent of who wrote the text (offline responder or LLM)."""
        return [fid for fid, role in self.roles.items() if role in roles and matches(self.facts[fid], text)]
