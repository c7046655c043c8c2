"""Registers: who speaks, to whom, in what kind of record (`Register`, `REGISTERS`), and the
spoken asides and hedges that are fine in talk and never in a controlled document."""
from __future__ import annotations

from dataclasses import dataclass


# Spoken asides and hedges: fine in talk, never in a controlled document (the lints check
# delivered files for them; the LLM writer's drafts are held to the same rule).
ASIDES = ("as it happens", "in practice", "mind you", "to be clear", "as far as i know", "basically",
          "for what it's worth", "in our experience", "to be honest", "if i remember rightly", "i guess")
HEDGES = ("i think", "i believe", "probably", "maybe", "perhaps", "i'm not sure", "as far as i know",
          "if i recall", "i suppose", "apparently")


@dataclass(frozen=True)
class Register:
    """Who speaks, to whom, in what kind of record."""

    speaker: str = "agent"      # agent | manager | colleague | customer | document
    audience: str = "customer"  # customer | staff | public
    genre: str = "chat"         # chat | email | call | team_chat | meeting | ticket | manual | kb | memo | table | slide

    @property
    def controlled(self) -> bool:
        """A controlled document: formal, third person, no asides, hedges or contractions."""
        return self.genre in ("manual", "kb", "memo", "table", "slide")

    @property
    def casual(self) -> bool:
        return self.genre in ("chat", "team_chat", "call", "meeting")

    @property
    def to_customer(self) -> bool:
        return self.audience == "customer" and self.speaker != "customer"

    @property
    def staff_talk(self) -> bool:
        return self.audience == "staff" and not self.controlled


REGISTERS = {
    "chat": Register("agent", "customer", "chat"), "call": Register("agent", "customer", "call"),
    "customer_email": Register("agent", "customer", "email"), "staff_email": Register("manager", "staff", "email"),
    "team_chat": Register("manager", "staff", "team_chat"), "meeting": Register("manager", "staff", "meeting"),
    "ticket": Register("manager", "staff", "ticket"), "manual": Register("document", "staff", "manual"),
    "kb": Register("document", "public", "kb"), "memo": Register("manager", "staff", "memo"),
    "table": Register("document", "staff", "table"), "slide": Register("document", "staff", "slide"),
}
