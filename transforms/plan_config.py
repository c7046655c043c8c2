"""What a build asks of the evidence planner (`PlanConfig`): which families and kinds, the
profile of modalities, how many carriers, distractors and voiced renditions, the volume of
routine traffic and the span of history."""
from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from . import registry


class PlanConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    carriers_per_fact: int = Field(1, ge=1, le=5)
    families: list[str] = Field(default_factory=lambda: list(registry.FAMILIES))
    kinds: Optional[list[str]] = None  # explicit subset of "family/kind"
    profile: Literal["text-only", "text+image", "text+image+audio", "full"] = "full"
    noise_ratio: float = Field(0.5, ge=0, le=10)
    distractor_rate: float = Field(0.12, ge=0, le=1)   # a carrier's plainly stated, corrected wrong value
    superseded_rate: float = Field(0.0, ge=0, le=1)    # an old value inside its carrier (hedged)
    voiced_rate: float = Field(0.85, ge=0, le=1)  # share of facts never written in the policy's words (quoted_facts)
    stray_distractor_rate: float = Field(0.012, ge=0, le=1)  # a hedged belief in a file carrying nothing
    roles: bool = True   # the second pass (plan_roles): volume, routes, series, echoes, chains
    volume: float = Field(1.0, ge=0, le=10)  # routine traffic, relative to the default
    max_artifacts: dict[str, int] = Field(default_factory=dict)  # by kind key or modality
    reseed: dict[str, int] = Field(default_factory=dict)  # artifact id -> regeneration round
    history_days: int = Field(180, ge=7)
