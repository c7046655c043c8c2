"""The base of every strict pydantic model in factforge: an unknown field is an error."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class StrictModel(BaseModel):
    """A pydantic model that refuses fields it does not declare (`extra="forbid"`)."""

    model_config = ConfigDict(extra="forbid")
